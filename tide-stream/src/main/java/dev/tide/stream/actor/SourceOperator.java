package dev.tide.stream.actor;

import dev.tide.common.chunk.StreamChunk;

/**
 * The leaf of a source actor. Between barriers the actor asks it for chunks; it never blocks.
 * Emission starts at the first barrier, stops while paused, and ends when the source is exhausted.
 */
public interface SourceOperator extends Operator {
  /** The next chunk, or null if nothing may be emitted now. */
  StreamChunk next(long nowNanos);

  /** Nanoseconds until {@link #next} may return data, or {@link Long#MAX_VALUE} if only a barrier can change that. */
  long nanosUntilReady(long nowNanos);

  @Override
  default void process(int side, StreamChunk chunk, Emitter out) {
    throw new UnsupportedOperationException("a source has no input");
  }
}
