package dev.tide.common.chunk;

import dev.tide.common.types.DataType;
import java.util.ArrayList;
import java.util.List;

/**
 * A columnar batch of changes: an op per row, columns of equal size, and an optional visibility
 * mask ({@code null} = every row visible). Immutable once built; operators derive new chunks.
 */
public final class StreamChunk {
  /** Default maximum rows per chunk. */
  public static final int DEFAULT_CAPACITY = 1024;

  private final byte[] ops;
  private final Column[] columns;
  private final int size;
  private final boolean[] visibility;

  public StreamChunk(byte[] ops, Column[] columns, int size, boolean[] visibility) {
    this.ops = ops;
    this.columns = columns;
    this.size = size;
    this.visibility = visibility;
    for (Column c : columns) {
      if (c.size() != size) {
        throw new IllegalArgumentException("column size " + c.size() + " differs from chunk size " + size);
      }
    }
  }

  public int size() {
    return size;
  }

  public int columnCount() {
    return columns.length;
  }

  public Column column(int i) {
    return columns[i];
  }

  public Column[] columns() {
    return columns;
  }

  public byte op(int row) {
    return ops[row];
  }

  public byte[] ops() {
    return ops;
  }

  public boolean visible(int row) {
    return visibility == null || visibility[row];
  }

  public boolean[] visibility() {
    return visibility;
  }

  /** Number of visible rows. */
  public int cardinality() {
    if (visibility == null) {
      return size;
    }
    int n = 0;
    for (int i = 0; i < size; i++) {
      if (visibility[i]) {
        n++;
      }
    }
    return n;
  }

  public StreamChunk withVisibility(boolean[] vis) {
    return new StreamChunk(ops, columns, size, vis);
  }

  public StreamChunk withColumns(Column[] cols) {
    return new StreamChunk(ops, cols, size, visibility);
  }

  public StreamChunk withOps(byte[] newOps) {
    return new StreamChunk(newOps, columns, size, visibility);
  }

  /** This chunk with invisible rows removed (itself if all are visible). */
  public StreamChunk compact() {
    if (visibility == null) {
      return this;
    }
    int[] rows = new int[size];
    int n = 0;
    for (int i = 0; i < size; i++) {
      if (visibility[i]) {
        rows[n++] = i;
      }
    }
    if (n == size) {
      return new StreamChunk(ops, columns, size, null);
    }
    return gather(rows, n);
  }

  /** A chunk of rows {@code rows[0..n)} in that order, all visible. */
  public StreamChunk gather(int[] rows, int n) {
    byte[] o = new byte[n];
    for (int i = 0; i < n; i++) {
      o[i] = ops[rows[i]];
    }
    Column[] cols = new Column[columns.length];
    for (int c = 0; c < cols.length; c++) {
      cols[c] = columns[c].gather(rows, n);
    }
    return new StreamChunk(o, cols, n, null);
  }

  /** Boxed values of row i (row paths and tests only). */
  public Object[] row(int i) {
    Object[] r = new Object[columns.length];
    for (int c = 0; c < r.length; c++) {
      r[c] = columns[c].get(i);
    }
    return r;
  }

  public DataType[] types() {
    DataType[] t = new DataType[columns.length];
    for (int i = 0; i < t.length; i++) {
      t[i] = columns[i].type();
    }
    return t;
  }

  /** Visible rows as boxed (op, values) pairs: for tests and debugging. */
  public List<Object[]> visibleRows() {
    List<Object[]> out = new ArrayList<>();
    for (int i = 0; i < size; i++) {
      if (visible(i)) {
        out.add(row(i));
      }
    }
    return out;
  }

  @Override
  public String toString() {
    StringBuilder sb = new StringBuilder("StreamChunk[").append(cardinality()).append(" rows]");
    for (int i = 0; i < Math.min(size, 8); i++) {
      if (visible(i)) {
        sb.append("\n  ").append(Op.of(ops[i])).append(' ').append(java.util.Arrays.toString(row(i)));
      }
    }
    return sb.toString();
  }
}
