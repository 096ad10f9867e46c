package dev.tide.common.chunk;

import dev.tide.common.types.DataType;

/** INT values. */
public final class IntColumn extends Column {
  private final int[] values;

  public IntColumn(int[] values, int size, boolean[] nulls) {
    super(size, nulls);
    this.values = values;
  }

  @Override
  public DataType type() {
    return DataType.INT;
  }

  public int getInt(int i) {
    return values[i];
  }

  public int[] values() {
    return values;
  }

  @Override
  public Object get(int i) {
    return isNull(i) ? null : values[i];
  }

  @Override
  public Column gather(int[] rows, int n) {
    int[] out = new int[n];
    for (int i = 0; i < n; i++) {
      out[i] = values[rows[i]];
    }
    return new IntColumn(out, n, gatherNulls(rows, n));
  }
}
