package dev.tide.stream.exchange;

/**
 * Where an actor's dispatcher puts messages ({@code StreamChunk} or {@code Barrier}) for one
 * downstream actor: a local {@code Channel} or a {@link RemoteOutput}. {@link #send} blocks while the
 * destination has no room: that is backpressure.
 *
 * <p>Intended home: {@code dev.tide.stream.actor}, implemented by {@code Channel} (its {@code send}
 * already has this signature) and taken by {@code Dispatcher} in place of {@code Channel[]}.
 */
@FunctionalInterface
public interface Outbox {
  /**
   * Delivers the message or blocks until it can.
   *
   * @throws InterruptedException if the sending thread is interrupted while blocked (actor stop)
   * @throws ExchangeException if the destination is gone (remote link broken): the actor must fail
   */
  void send(Object message) throws InterruptedException;
}
