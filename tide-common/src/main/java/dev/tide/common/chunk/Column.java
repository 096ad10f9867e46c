package dev.tide.common.chunk;

import dev.tide.common.types.DataType;

/**
 * An immutable column of a chunk: primitive values plus an optional null mask ({@code nulls == null}
 * means no nulls). Hot paths use the typed subclasses; {@link #get} boxes and is for row paths only.
 */
public abstract sealed class Column permits LongColumn, IntColumn, DoubleColumn, BoolColumn, StringColumn {
  protected final int size;
  protected final boolean[] nulls;

  protected Column(int size, boolean[] nulls) {
    this.size = size;
    this.nulls = nulls;
  }

  public abstract DataType type();

  public final int size() {
    return size;
  }

  public final boolean isNull(int i) {
    return nulls != null && nulls[i];
  }

  public final boolean hasNulls() {
    return nulls != null;
  }

  /** Boxed value of row i, or null. */
  public abstract Object get(int i);

  /** A new column holding rows {@code rows[0..n)} of this one, in that order. */
  public abstract Column gather(int[] rows, int n);

  protected final boolean[] gatherNulls(int[] rows, int n) {
    if (nulls == null) {
      return null;
    }
    boolean[] out = new boolean[n];
    boolean any = false;
    for (int i = 0; i < n; i++) {
      out[i] = nulls[rows[i]];
      any |= out[i];
    }
    return any ? out : null;
  }

  /** Builds a column of this type from boxed values (nulls allowed). */
  public static Column ofObjects(DataType type, Object... values) {
    ColumnBuilder b = ColumnBuilder.create(type, values.length);
    for (Object v : values) {
      b.appendObject(v);
    }
    return b.build();
  }
}
