package dev.tide.connectors.sink;

import java.util.List;

/**
 * The external side of a {@link StagedSinkOp}: a system that can apply rows and record, in the
 * same transaction, the last epoch applied for one sink actor. Thread-safety: confined to the actor thread.
 */
public interface Publisher extends AutoCloseable {
  /**
   * Fences any earlier instance of this actor (a zombie after a crash), aborts what it left open, and
   * returns the last epoch recorded as published for this actor, or -1.
   */
  long recover();

  /**
   * Applies {@code rows} in order and records {@code upToEpoch} as published, atomically: after a
   * crash either both happened or neither. Does nothing if {@code upToEpoch} is already recorded.
   */
  void publish(List<StagedRow> rows, long upToEpoch);

  @Override
  void close();

  /** A staged change: its op ({@link dev.tide.common.chunk.Op} code), key and value as JSON objects. */
  record StagedRow(byte op, String key, String value) {}
}
