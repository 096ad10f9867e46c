package dev.tide.common.chunk;

import dev.tide.common.types.DataType;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Appends values of one type and builds an immutable {@link Column}. Reusable: {@link #build()}
 * hands the arrays to the column and allocates fresh ones at the next append (a builder used once
 * allocates no second set), or, when they are less than half full, gives the column a copy of their
 * used part and keeps them. Thread-safety: confined to one thread.
 */
public abstract sealed class ColumnBuilder
    permits ColumnBuilder.Longs, ColumnBuilder.Ints, ColumnBuilder.Doubles, ColumnBuilder.Bools, ColumnBuilder.Strings {
  protected int size;
  protected boolean[] nulls;
  protected int capacity;
  private boolean handedOff; // the last build gave the arrays to its column: fresh ones come with the next append

  protected ColumnBuilder(int capacity) {
    this.capacity = Math.max(4, capacity);
  }

  public static ColumnBuilder create(DataType type, int capacity) {
    return switch (type) {
      case BIGINT, TIMESTAMP -> new Longs(type, capacity);
      case INT -> new Ints(capacity);
      case DOUBLE -> new Doubles(capacity);
      case BOOLEAN -> new Bools(capacity);
      case VARCHAR -> new Strings(capacity);
    };
  }

  public final int size() {
    return size;
  }

  protected final void ensure() {
    reclaim();
    if (size == capacity) {
      capacity = capacity * 2;
      grow(capacity);
      if (nulls != null) {
        nulls = Arrays.copyOf(nulls, capacity);
      }
    }
  }

  protected abstract void grow(int newCapacity);

  /** Allocates empty arrays of {@code capacity} values (the previous ones belong to a built column). */
  protected abstract void fresh(int capacity);

  /** After {@link #build} handed the arrays over: the next append or build allocates fresh ones. */
  protected final void handOff() {
    handedOff = true;
  }

  /** Allocates fresh arrays if the last build handed the previous ones to its column. */
  protected final void reclaim() {
    if (handedOff) {
      handedOff = false;
      fresh(capacity);
    }
  }

  /**
   * Less than half full: {@code build()} then copies the values out and keeps its arrays, rather
   * than handing them over and allocating (and zeroing) arrays of the full capacity again.
   */
  protected final boolean isPartial() {
    return size * 2 < capacity;
  }

  protected final void markNull() {
    if (nulls == null) {
      nulls = new boolean[capacity];
    }
    nulls[size] = true;
  }

  protected final boolean[] takeNulls() {
    boolean[] n = nulls;
    nulls = null;
    return n;
  }

  public abstract void appendNull();

  /** Appends a boxed value of the builder's type (Integer/Long/Double/Boolean/String) or null. */
  public abstract void appendObject(Object value);

  /** Appends row {@code row} of {@code from}, which must have this builder's type. */
  public abstract void appendFrom(Column from, int row);

  public abstract Column build();

  /** BIGINT and TIMESTAMP. */
  public static final class Longs extends ColumnBuilder {
    private final DataType type;
    private long[] values;

    Longs(DataType type, int capacity) {
      super(capacity);
      this.type = type;
      this.values = new long[this.capacity];
    }

    public void append(long v) {
      ensure();
      values[size++] = v;
    }

    @Override
    protected void grow(int n) {
      values = Arrays.copyOf(values, n);
    }

    @Override
    public void appendNull() {
      ensure();
      markNull();
      values[size++] = 0;
    }

    @Override
    public void appendObject(Object value) {
      if (value == null) {
        appendNull();
      } else {
        append(((Number) value).longValue());
      }
    }

    @Override
    public void appendFrom(Column from, int row) {
      if (from.isNull(row)) {
        appendNull();
      } else {
        append(((LongColumn) from).getLong(row));
      }
    }

    @Override
    protected void fresh(int n) {
      values = new long[n];
    }

    @Override
    public Column build() {
      reclaim();
      Column c;
      if (isPartial()) {
        c = new LongColumn(type, Arrays.copyOf(values, size), size, takeNulls());
      } else {
        c = new LongColumn(type, values, size, takeNulls());
        handOff();
      }
      size = 0;
      return c;
    }
  }

  /** INT. */
  public static final class Ints extends ColumnBuilder {
    private int[] values;

    Ints(int capacity) {
      super(capacity);
      this.values = new int[this.capacity];
    }

    public void append(int v) {
      ensure();
      values[size++] = v;
    }

    @Override
    protected void grow(int n) {
      values = Arrays.copyOf(values, n);
    }

    @Override
    public void appendNull() {
      ensure();
      markNull();
      values[size++] = 0;
    }

    @Override
    public void appendObject(Object value) {
      if (value == null) {
        appendNull();
      } else {
        append(((Number) value).intValue());
      }
    }

    @Override
    public void appendFrom(Column from, int row) {
      if (from.isNull(row)) {
        appendNull();
      } else {
        append(((IntColumn) from).getInt(row));
      }
    }

    @Override
    protected void fresh(int n) {
      values = new int[n];
    }

    @Override
    public Column build() {
      reclaim();
      Column c;
      if (isPartial()) {
        c = new IntColumn(Arrays.copyOf(values, size), size, takeNulls());
      } else {
        c = new IntColumn(values, size, takeNulls());
        handOff();
      }
      size = 0;
      return c;
    }
  }

  /** DOUBLE. */
  public static final class Doubles extends ColumnBuilder {
    private double[] values;

    Doubles(int capacity) {
      super(capacity);
      this.values = new double[this.capacity];
    }

    public void append(double v) {
      ensure();
      values[size++] = v;
    }

    @Override
    protected void grow(int n) {
      values = Arrays.copyOf(values, n);
    }

    @Override
    public void appendNull() {
      ensure();
      markNull();
      values[size++] = 0;
    }

    @Override
    public void appendObject(Object value) {
      if (value == null) {
        appendNull();
      } else {
        append(((Number) value).doubleValue());
      }
    }

    @Override
    public void appendFrom(Column from, int row) {
      if (from.isNull(row)) {
        appendNull();
      } else {
        append(((DoubleColumn) from).getDouble(row));
      }
    }

    @Override
    protected void fresh(int n) {
      values = new double[n];
    }

    @Override
    public Column build() {
      reclaim();
      Column c;
      if (isPartial()) {
        c = new DoubleColumn(Arrays.copyOf(values, size), size, takeNulls());
      } else {
        c = new DoubleColumn(values, size, takeNulls());
        handOff();
      }
      size = 0;
      return c;
    }
  }

  /** BOOLEAN. */
  public static final class Bools extends ColumnBuilder {
    private boolean[] values;

    Bools(int capacity) {
      super(capacity);
      this.values = new boolean[this.capacity];
    }

    public void append(boolean v) {
      ensure();
      values[size++] = v;
    }

    @Override
    protected void grow(int n) {
      values = Arrays.copyOf(values, n);
    }

    @Override
    public void appendNull() {
      ensure();
      markNull();
      values[size++] = false;
    }

    @Override
    public void appendObject(Object value) {
      if (value == null) {
        appendNull();
      } else {
        append((Boolean) value);
      }
    }

    @Override
    public void appendFrom(Column from, int row) {
      if (from.isNull(row)) {
        appendNull();
      } else {
        append(((BoolColumn) from).getBool(row));
      }
    }

    @Override
    protected void fresh(int n) {
      values = new boolean[n];
    }

    @Override
    public Column build() {
      reclaim();
      Column c;
      if (isPartial()) {
        c = new BoolColumn(Arrays.copyOf(values, size), size, takeNulls());
      } else {
        c = new BoolColumn(values, size, takeNulls());
        handOff();
      }
      size = 0;
      return c;
    }
  }

  /** VARCHAR, appended as UTF-8 bytes. */
  public static final class Strings extends ColumnBuilder {
    private byte[] data;
    private int[] offsets;
    private int bytes;
    private int handedBytes; // bytes of the column the last build handed the arrays to: the next data array's size

    Strings(int capacity) {
      super(capacity);
      this.data = new byte[this.capacity * 16];
      this.offsets = new int[this.capacity + 1];
    }

    @Override
    protected void grow(int n) {
      offsets = Arrays.copyOf(offsets, n + 1);
    }

    private void reserve(int len) {
      if (bytes + len > data.length) {
        data = Arrays.copyOf(data, Math.max(data.length * 2, bytes + len));
      }
    }

    public void append(byte[] src, int off, int len) {
      ensure();
      reserve(len);
      System.arraycopy(src, off, data, bytes, len);
      bytes += len;
      offsets[++size] = bytes;
    }

    public void append(String s) {
      byte[] b = s.getBytes(StandardCharsets.UTF_8);
      append(b, 0, b.length);
    }

    /** Appends an ASCII string built from a prefix and a decimal number without allocating. */
    public void appendAsciiWithNumber(byte[] prefix, long number) {
      ensure();
      reserve(prefix.length + 20);
      System.arraycopy(prefix, 0, data, bytes, prefix.length);
      bytes += prefix.length;
      bytes = writeDecimal(data, bytes, number);
      offsets[++size] = bytes;
    }

    /** Writes {@code v} in decimal at {@code pos}: one division per digit, digits counted by comparison. */
    private static int writeDecimal(byte[] out, int pos, long v) {
      // Digits are produced from the negative magnitude: -Long.MIN_VALUE does not fit in a long.
      long neg = v;
      if (v < 0) {
        out[pos++] = '-';
      } else {
        neg = -v;
      }
      int end = pos + decimalDigits(neg);
      int p = end;
      do {
        long q = neg / 10;
        out[--p] = (byte) ('0' + (q * 10 - neg));
        neg = q;
      } while (neg != 0);
      return end;
    }

    /** Decimal digits of {@code -neg} for {@code neg <= 0} (1 for 0, at most 19). */
    private static int decimalDigits(long neg) {
      int digits = 1;
      for (long bound = -10; digits < 19 && neg <= bound; bound *= 10) {
        digits++;
      }
      return digits;
    }

    @Override
    public void appendNull() {
      ensure();
      markNull();
      offsets[++size] = bytes;
    }

    @Override
    public void appendObject(Object value) {
      if (value == null) {
        appendNull();
      } else {
        append((String) value);
      }
    }

    @Override
    public void appendFrom(Column from, int row) {
      if (from.isNull(row)) {
        appendNull();
      } else {
        StringColumn s = (StringColumn) from;
        append(s.data(), s.offset(row), s.length(row));
      }
    }

    @Override
    protected void fresh(int n) {
      data = new byte[Math.max(64, handedBytes)];
      offsets = new int[n + 1];
    }

    @Override
    public Column build() {
      reclaim();
      Column c;
      if (isPartial() && bytes * 2 < data.length) {
        c = new StringColumn(Arrays.copyOf(data, bytes), Arrays.copyOf(offsets, size + 1), size, takeNulls());
      } else {
        c = new StringColumn(data, offsets, size, takeNulls());
        handedBytes = bytes;
        handOff();
      }
      size = 0;
      bytes = 0;
      return c;
    }
  }
}
