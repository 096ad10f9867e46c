package dev.tide.common.chunk;

import dev.tide.common.types.DataType;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/** VARCHAR values as UTF-8 bytes in one array; row i spans {@code data[offsets[i] .. offsets[i+1])}. */
public final class StringColumn extends Column {
  private final byte[] data;
  private final int[] offsets;

  public StringColumn(byte[] data, int[] offsets, int size, boolean[] nulls) {
    super(size, nulls);
    this.data = data;
    this.offsets = offsets;
  }

  @Override
  public DataType type() {
    return DataType.VARCHAR;
  }

  public byte[] data() {
    return data;
  }

  public int offset(int i) {
    return offsets[i];
  }

  public int length(int i) {
    return offsets[i + 1] - offsets[i];
  }

  public String getString(int i) {
    return isNull(i) ? null : new String(data, offsets[i], length(i), StandardCharsets.UTF_8);
  }

  /** Compares row i's bytes with {@code other} (UTF-8) without decoding. */
  public boolean bytesEqual(int i, byte[] other) {
    return Arrays.equals(data, offsets[i], offsets[i + 1], other, 0, other.length);
  }

  /** Whether rows {@code a} and {@code b} hold the same bytes (both non-null), without decoding. */
  public boolean sameBytes(int a, int b) {
    return Arrays.equals(data, offsets[a], offsets[a + 1], data, offsets[b], offsets[b + 1]);
  }

  @Override
  public Object get(int i) {
    return getString(i);
  }

  @Override
  public Column gather(int[] rows, int n) {
    int total = 0;
    for (int i = 0; i < n; i++) {
      total += length(rows[i]);
    }
    byte[] out = new byte[total];
    int[] outOffsets = new int[n + 1];
    int pos = 0;
    for (int i = 0; i < n; i++) {
      int r = rows[i];
      int len = length(r);
      System.arraycopy(data, offsets[r], out, pos, len);
      pos += len;
      outOffsets[i + 1] = pos;
    }
    return new StringColumn(out, outOffsets, n, gatherNulls(rows, n));
  }
}
