package dev.tide.common.chunk;

import dev.tide.common.types.DataType;

/** BOOLEAN values. */
public final class BoolColumn extends Column {
  private final boolean[] values;

  public BoolColumn(boolean[] values, int size, boolean[] nulls) {
    super(size, nulls);
    this.values = values;
  }

  @Override
  public DataType type() {
    return DataType.BOOLEAN;
  }

  public boolean getBool(int i) {
    return values[i];
  }

  /** True when the value is true and not null (SQL filter semantics). */
  public boolean isTrue(int i) {
    return values[i] && !isNull(i);
  }

  public boolean[] values() {
    return values;
  }

  @Override
  public Object get(int i) {
    return isNull(i) ? null : values[i];
  }

  @Override
  public Column gather(int[] rows, int n) {
    boolean[] out = new boolean[n];
    for (int i = 0; i < n; i++) {
      out[i] = values[rows[i]];
    }
    return new BoolColumn(out, n, gatherNulls(rows, n));
  }
}
