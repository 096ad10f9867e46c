package dev.tide.stream.actor;

import dev.tide.common.chunk.StreamChunk;
import dev.tide.common.hash.VnodeBitmap;

/**
 * A streaming operator inside an actor. Push-based: the actor hands it chunks of input {@code side}
 * (0, or 1 for the right side of a join) and, once per barrier after every input has delivered its
 * rows for the epoch, calls {@link #onBarrier}, where it flushes pending output and seals its state
 * writes of the barrier's previous epoch. Thread-safety: confined to the actor's thread.
 */
public interface Operator {
  /** Called once before the first message, on the actor thread. */
  default void open() {}

  void process(int side, StreamChunk chunk, Emitter out) throws InterruptedException;

  default void onBarrier(Barrier barrier, Emitter out) throws InterruptedException {}

  /**
   * As {@link #onBarrier}, but the operator may keep part of the barrier's work for later: it
   * returns true if it did, and the actor then feeds it the next epoch's input, calls {@link
   * #continueBarrier} between inputs until that returns true, and only then passes the barrier to
   * the operators above and on. So a barrier whose work is large does not stop the input. The actor
   * offers this only to an operator every input of the actor reaches (the operators above it see
   * nothing of the next epoch but through it) and never for a barrier with a mutation or the
   * actor's first. While it holds a barrier, the operator must emit everything of the barrier's
   * epoch before anything of the next, and hand its writes of the barrier's epoch to the store
   * under that epoch when it is done.
   */
  default boolean beginBarrier(Barrier barrier, Emitter out) throws InterruptedException {
    onBarrier(barrier, out);
    return false;
  }

  /** A slice of a held barrier's work ({@code all}: all that is left); true once the barrier's work is done. */
  default boolean continueBarrier(Emitter out, boolean all) throws InterruptedException {
    return true;
  }

  /**
   * The least watermark of input {@code side} rose (see {@link Watermark}). The default drops it,
   * which is always safe: operators downstream then keep their state longer. An operator that passes
   * it on maps it to the output column that carries the same values.
   */
  default void onWatermark(int side, Watermark watermark, Emitter out) throws InterruptedException {}

  default void close() {}

  /**
   * The actor's vnodes changed at a reschedule barrier, after {@link #onBarrier} sealed the epoch.
   * State tables take the new set; caches follow the eviction rule (spec online-scaling 9): keyed
   * caches are cleared when {@code vnodes} is not a subset of {@code old}, iterated caches on any change.
   */
  default void updateVnodes(VnodeBitmap old, VnodeBitmap vnodes) {}

  /** Where an operator sends its output chunks and watermarks. */
  @FunctionalInterface
  interface Emitter {
    void emit(StreamChunk chunk) throws InterruptedException;

    /** Passes a watermark on; emitters that only collect chunks (tests) drop it. */
    default void watermark(Watermark watermark) throws InterruptedException {}

    /** Emits {@code chunk} unless it is null (a builder returns null until a chunk is full). */
    default void emitIfAny(StreamChunk chunk) throws InterruptedException {
      if (chunk != null) {
        emit(chunk);
      }
    }
  }
}
