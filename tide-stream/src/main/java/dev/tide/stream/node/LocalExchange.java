package dev.tide.stream.node;

import dev.tide.stream.actor.Channel;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Input channels of actors by (upstream actor, downstream actor). Both ends ask for the same pair
 * and get the same channel, whichever comes first: two actors of one node, actors of nodes sharing
 * this registry in one JVM, or a remote sender's link and the downstream actor.
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

  /** Forgets the channel of one pair (a reschedule removed the link). */
  public void release(long upActor, long downActor) {
    channels.remove(new Link(upActor, downActor));
  }

  /** Forgets every channel touching one of these actors (they stopped). */
  public void removeActors(Set<Long> actors) {
    channels.keySet().removeIf(l -> actors.contains(l.up()) || actors.contains(l.down()));
  }

  /** Forgets every channel (a node that owns this registry was reset). */
  public void clear() {
    channels.clear();
  }

  /** Channels registered now (leak checks, status). */
  public int size() {
    return channels.size();
  }
}
