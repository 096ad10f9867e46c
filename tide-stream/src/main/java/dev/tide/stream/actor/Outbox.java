package dev.tide.stream.actor;

/**
 * Where a dispatcher puts messages ({@code StreamChunk} or {@link Barrier}) for one downstream
 * actor: a local {@link Channel}, or a remote link to the downstream actor's node
 * ({@code exchange.RemoteOutput}). {@link #send} blocks while the destination has no room: that is
 * backpressure, the same for both.
 */
@FunctionalInterface
public interface Outbox {
  /**
   * Delivers the message or blocks until it can.
   *
   * @throws InterruptedException if the sending thread is interrupted while blocked (actor stop)
   * @throws RuntimeException if the destination is gone (a broken remote link): the actor fails
   */
  void send(Object message) throws InterruptedException;
}
