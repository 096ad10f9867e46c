package dev.tide.common.chunk;

import dev.tide.common.types.DataType;

/** BIGINT or TIMESTAMP values. */
public final class LongColumn extends Column {
  private final DataType type;
  private final long[] values;

  public LongColumn(DataType type, long[] values, int size, boolean[] nulls) {
    super(size, nulls);
    if (!type.isLongBacked()) {
      throw new IllegalArgumentException("LongColumn cannot hold type " + type);
    }
    this.type = type;
    this.values = values;
  }

  @Override
  public DataType type() {
    return type;
  }

  public long getLong(int i) {
    return values[i];
  }

  /** The backing array; only rows {@code [0, size)} are meaningful. Callers must not modify it. */
  public long[] values() {
    return values;
  }

  @Override
  public Object get(int i) {
    return isNull(i) ? null : values[i];
  }

  @Override
  public Column gather(int[] rows, int n) {
    long[] out = new long[n];
    for (int i = 0; i < n; i++) {
      out[i] = values[rows[i]];
    }
    return new LongColumn(type, out, n, gatherNulls(rows, n));
  }
}
