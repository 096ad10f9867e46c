package dev.tide.stream.operator;

import dev.tide.common.chunk.BoolColumn;
import dev.tide.common.chunk.Column;
import dev.tide.common.chunk.DoubleColumn;
import dev.tide.common.chunk.IntColumn;
import dev.tide.common.chunk.LongColumn;
import dev.tide.common.chunk.StringColumn;
import dev.tide.common.types.DataType;

/**
 * Which of two values of a group top's order column is better: the greater when descending, else
 * the lesser. Values other than VARCHAR compare by a long rank, without boxing: integers as
 * themselves, booleans as 0 and 1, doubles by their sortable bits (the order of
 * {@link Double#compare}, NaN greatest, except that -0.0 equals 0.0, as in keys); VARCHAR compares
 * like {@link String#compareTo}, as MIN/MAX do. Null values are the caller's to skip.
 */
final class TopOrder {
  private final boolean text;
  private final boolean descending;

  TopOrder(DataType type, boolean descending) {
    this.text = type == DataType.VARCHAR;
    this.descending = descending;
  }

  /** A group's best value so far; {@link #isSet} false until the first value. */
  static class Best {
    private long rank;
    private String string;
    private boolean set;

    final boolean isSet() {
      return set;
    }

    /** Back to no value, as before the first. */
    final void clearBest() {
      set = false;
      string = null;
    }
  }

  /** Positive if row {@code row}'s value (not null) is better than {@code best}'s, 0 if equal, else negative. */
  int compare(Column c, int row, Best best) {
    if (!best.set) {
      return 1;
    }
    int cmp = text ? ((StringColumn) c).getString(row).compareTo(best.string) : Long.compare(rank(c, row), best.rank);
    return descending ? cmp : -cmp;
  }

  /** Makes row {@code row}'s value (not null) the best. */
  void assign(Column c, int row, Best best) {
    if (text) {
      best.string = ((StringColumn) c).getString(row);
    } else {
      best.rank = rank(c, row);
    }
    best.set = true;
  }

  /** Makes a boxed value of the column (not null) the best. */
  void assign(Object value, Best best) {
    if (text) {
      best.string = (String) value;
    } else {
      best.rank = value instanceof Boolean b ? (b ? 1 : 0) : value instanceof Double d ? sortable(d) : ((Number) value).longValue();
    }
    best.set = true;
  }

  private static long rank(Column c, int row) {
    if (c instanceof LongColumn l) {
      return l.getLong(row);
    }
    if (c instanceof IntColumn i) {
      return i.getInt(row);
    }
    if (c instanceof DoubleColumn d) {
      return sortable(d.getDouble(row));
    }
    return ((BoolColumn) c).getBool(row) ? 1 : 0;
  }

  /** Longs that compare as the doubles do. */
  private static long sortable(double d) {
    long bits = Double.doubleToLongBits(d == 0.0 ? 0.0 : d);
    return bits ^ ((bits >> 63) & Long.MAX_VALUE);
  }
}
