package dev.tide.stream.node;

import dev.tide.stream.actor.Channel;
import dev.tide.stream.actor.Outbox;
import dev.tide.stream.exchange.ExchangeClient;
import dev.tide.stream.exchange.ExchangeReceiver;
import dev.tide.stream.exchange.RemoteOutput;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.IntSupplier;

/**
 * The links of one compute node's actors, by (upstream actor, downstream actor): input channels
 * (written locally or by the {@link ExchangeReceiver} for remote senders) and outputs, which are
 * the downstream actor's input channel when it lives on this worker and a {@link RemoteOutput} to
 * its worker otherwise. Without an exchange client every link is a channel of the (JVM-wide)
 * {@link LocalExchange}: the embedded cluster whose nodes share one.
 *
 * <p>Life of a remote output: opened by the first dispatcher that names it; closed (half-closed
 * after the messages sent, so the receiver delivers them) when its actor releases it at a
 * reschedule, when its actor ends, or when the node is reset; aborted only if its actor's thread
 * did not stop. Channels are forgotten likewise. So a stopped actor leaves no link behind.
 *
 * <p>Thread-safety: safe for concurrent use; an output is used and closed by its actor's thread,
 * or by the resetting thread after the actor's thread ended.
 */
public final class Links {
  /** A remote output as status displays and tests see it. */
  public record RemoteLink(long upActorId, long downActorId, String peer, long messagesSent, int permits) {}

  private record Key(long up, long down) {}

  private record Remote(RemoteOutput output, String peer) {}

  private final LocalExchange channels;
  private final ExchangeClient client;
  private final IntSupplier workerId;
  private final ConcurrentHashMap<Key, Remote> remotes = new ConcurrentHashMap<>();

  /**
   * @param client null: every link is local (nodes sharing {@code channels} in one JVM)
   * @param workerId this node's worker id as meta knows it: downstream actors on it get channels
   */
  Links(LocalExchange channels, ExchangeClient client, IntSupplier workerId) {
    this.channels = channels;
    this.client = client;
    this.workerId = workerId;
  }

  boolean remoteCapable() {
    return client != null;
  }

  /** The channel {@code down} (on this node) reads messages of {@code up} from. */
  Channel input(long up, long down) {
    return channels.channel(up, down);
  }

  /** The output of {@code up} to {@code down}, placed on worker {@code downWorker} at {@code downAddress}. */
  Outbox output(long up, long down, int downWorker, String downAddress) {
    if (client == null || downWorker == workerId.getAsInt()) {
      return channels.channel(up, down);
    }
    return remotes.computeIfAbsent(new Key(up, down), k -> new Remote(client.open(downAddress, up, down), downAddress)).output();
  }

  /** The output of {@code up} to {@code down} when the dispatcher does not say where {@code down} runs. */
  Outbox output(long up, long down) {
    if (client != null) {
      throw new IllegalArgumentException("dispatcher of actor " + up + " names no worker for downstream actor " + down
          + "; a node with remote exchange needs the downstream workers and addresses in every dispatcher");
    }
    return channels.channel(up, down);
  }

  /** The link is no longer used by its actor; called on that actor's thread. */
  void release(long up, long down) {
    Remote r = remotes.remove(new Key(up, down));
    if (r != null) {
      r.output().close();
    }
    channels.release(up, down);
  }

  /**
   * These actors ended (dropped by a reschedule or stopped by a reset) and their threads are done,
   * except {@code stuck} ones: closes their outputs (aborts those of stuck actors) and forgets
   * every channel touching them.
   */
  void actorsEnded(Set<Long> actors, Set<Long> stuck) {
    for (Map.Entry<Key, Remote> e : remotes.entrySet()) {
      long up = e.getKey().up();
      if (actors.contains(up) && remotes.remove(e.getKey(), e.getValue())) {
        RemoteOutput out = e.getValue().output();
        if (stuck.contains(up)) {
          out.abort("actor " + up + " did not stop");
        } else {
          out.close();
        }
      }
    }
    channels.removeActors(actors);
  }

  /**
   * The node was reset: every actor ended ({@link #actorsEnded}); a node with its own channels also
   * forgets channels that remote senders opened for actors that never ran here.
   */
  void reset(Set<Long> actors, Set<Long> stuck) {
    actorsEnded(actors, stuck);
    if (client != null) {
      channels.clear();
    }
  }

  /** Remote outputs open now, by (up, down). */
  List<RemoteLink> remoteLinks() {
    List<RemoteLink> out = new ArrayList<>();
    remotes.forEach((k, r) -> out.add(new RemoteLink(k.up(), k.down(), r.peer(), r.output().messagesSent(), r.output().permits())));
    out.sort(Comparator.comparingLong(RemoteLink::upActorId).thenComparingLong(RemoteLink::downActorId));
    return out;
  }
}
