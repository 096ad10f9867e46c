package dev.tide.common.chunk;

import dev.tide.common.types.DataType;
import java.util.Arrays;

/**
 * Builds chunks row by row up to a capacity. {@link #append} methods return the finished chunk when
 * it becomes full, else {@code null}; {@link #take()} flushes a partial one. Thread-safety: confined.
 */
public final class ChunkBuilder {
  private final ColumnBuilder[] builders;
  private final int capacity;
  private byte[] ops;
  private int size;

  /** @param capacity rows per finished chunk, at least 1 */
  public ChunkBuilder(DataType[] types, int capacity) {
    if (capacity < 1) {
      throw new IllegalArgumentException("chunk capacity " + capacity + " must be at least 1");
    }
    this.capacity = capacity;
    this.builders = new ColumnBuilder[types.length];
    for (int i = 0; i < types.length; i++) {
      builders[i] = ColumnBuilder.create(types[i], capacity);
    }
    this.ops = new byte[capacity];
  }

  public int size() {
    return size;
  }

  public ColumnBuilder column(int i) {
    return builders[i];
  }

  /** Records the op of a row whose column values the caller appended directly to {@link #column}. */
  public StreamChunk finishRow(byte op) {
    if (size == ops.length) {
      ops = Arrays.copyOf(ops, ops.length * 2);
    }
    ops[size++] = op;
    return size >= capacity ? take() : null;
  }

  public StreamChunk appendRow(byte op, Object[] row) {
    for (int i = 0; i < builders.length; i++) {
      builders[i].appendObject(row[i]);
    }
    return finishRow(op);
  }

  /** Appends row {@code row} of {@code from} (same column types). */
  public StreamChunk appendFrom(byte op, StreamChunk from, int row) {
    for (int i = 0; i < builders.length; i++) {
      builders[i].appendFrom(from.column(i), row);
    }
    return finishRow(op);
  }

  /** Appends {@code left}'s row then {@code right}'s row as one output row (joins). */
  public StreamChunk appendJoined(byte op, StreamChunk left, int lrow, Object[] right) {
    int lc = left.columnCount();
    for (int i = 0; i < lc; i++) {
      builders[i].appendFrom(left.column(i), lrow);
    }
    for (int i = 0; i < right.length; i++) {
      builders[lc + i].appendObject(right[i]);
    }
    return finishRow(op);
  }

  /** Appends {@code left}'s values then {@code right}'s row as one output row (joins). */
  public StreamChunk appendJoined(byte op, Object[] left, StreamChunk right, int rrow) {
    for (int i = 0; i < left.length; i++) {
      builders[i].appendObject(left[i]);
    }
    int rc = right.columnCount();
    for (int i = 0; i < rc; i++) {
      builders[left.length + i].appendFrom(right.column(i), rrow);
    }
    return finishRow(op);
  }

  /** The rows appended so far as a chunk, or null if none. */
  public StreamChunk take() {
    if (size == 0) {
      return null;
    }
    Column[] cols = new Column[builders.length];
    for (int i = 0; i < cols.length; i++) {
      cols[i] = builders[i].build();
    }
    StreamChunk c = new StreamChunk(Arrays.copyOf(ops, size), cols, size, null);
    size = 0;
    return c;
  }
}
