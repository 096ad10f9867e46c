package dev.tide.stream.actor;

import dev.tide.common.chunk.StreamChunk;
import java.util.List;

/**
 * The leaf of a source actor. Between barriers the actor asks it for chunks; it never blocks.
 * Emission starts at the first barrier, stops while paused, and ends when the source is exhausted.
 */
public interface SourceOperator extends Operator {
  /** The next chunk, or null if nothing may be emitted now. */
  StreamChunk next(long nowNanos);

  /** Nanoseconds until {@link #next} may return data, or {@link Long#MAX_VALUE} if only a barrier can change that. */
  long nanosUntilReady(long nowNanos);

  /**
   * True once every split of this actor has reached the end of a bounded input: nothing more will
   * be emitted unless a reschedule gives it other splits. Never true for an unbounded source.
   */
  boolean ended();

  /**
   * The actor's splits changed at a reschedule barrier, after {@link #onBarrier} saved the offsets
   * of the old ones. Offsets of gained splits are read lazily: the actor reads nothing before the
   * barrier's previous epoch is committed.
   */
  void updateSplits(List<Integer> splits);

  /**
   * The source's watermark if it rose since the last call (see {@link Watermark}), else null. Called
   * by the actor after each {@link #next}. A source without event time never has one.
   */
  default Watermark pollWatermark() {
    return null;
  }

  /**
   * Rows behind what the source could read now: for a rate-paced source the events behind its
   * schedule, for a log the consumer lag; -1 if it cannot say. Called by the actor at each barrier.
   */
  default long backlog(long nowNanos) {
    return -1;
  }

  /**
   * Malformed records this source passed over (a connector's {@code on-error=skip}), in total over
   * the actor's splits, committed earlier epochs included; -1 if it skips none by design or cannot
   * say. Called by the actor at each barrier and reported with its load.
   */
  default long skipped() {
    return -1;
  }

  @Override
  default void process(int side, StreamChunk chunk, Emitter out) {
    throw new UnsupportedOperationException("a source has no input");
  }
}
