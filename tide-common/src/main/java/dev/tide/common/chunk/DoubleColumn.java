package dev.tide.common.chunk;

import dev.tide.common.types.DataType;

/** DOUBLE values. */
public final class DoubleColumn extends Column {
  private final double[] values;

  public DoubleColumn(double[] values, int size, boolean[] nulls) {
    super(size, nulls);
    this.values = values;
  }

  @Override
  public DataType type() {
    return DataType.DOUBLE;
  }

  public double getDouble(int i) {
    return values[i];
  }

  public double[] values() {
    return values;
  }

  @Override
  public Object get(int i) {
    return isNull(i) ? null : values[i];
  }

  @Override
  public Column gather(int[] rows, int n) {
    double[] out = new double[n];
    for (int i = 0; i < n; i++) {
      out[i] = values[rows[i]];
    }
    return new DoubleColumn(out, n, gatherNulls(rows, n));
  }
}
