package dev.tide.stream.node;

import dev.tide.stream.actor.Channel;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The channels between actors of compute nodes in one JVM, by (upstream actor, downstream actor).
 * Both ends ask for the same pair and get the same channel, whichever builds first.
 */
public final class LocalExchange {
  private record Link(long up, long down) {}

  private final ConcurrentHashMap<Link, Channel> channels = new ConcurrentHashMap<>();
  private final int capacity;

  public LocalExchange(int capacity) {
    this.capacity = capacity;
  }

  public Channel channel(long upActor, long downActor) {
    return channels.computeIfAbsent(new Link(upActor, downActor), l -> new Channel(capacity));
  }

  /** Forgets every channel touching one of these actors (they stopped). */
  public void removeActors(java.util.Set<Long> actors) {
    channels.keySet().removeIf(l -> actors.contains(l.up()) || actors.contains(l.down()));
  }
}
