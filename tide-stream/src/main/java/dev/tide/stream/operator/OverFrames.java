package dev.tide.stream.operator;

import dev.tide.common.types.DataType;
import dev.tide.proto.plan.AggKind;
import dev.tide.proto.plan.OverCall;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The aggregates of OVER windows with a frame of rows ({@link OverCall}): for each row of an ordered
 * group, each call over the row and the {@code preceding} rows before it. Nulls are skipped; SUM,
 * MIN, MAX and AVG of a frame with no value are null, COUNT of it 0. A bounded frame is summed
 * afresh per row (no running subtraction, so DOUBLE sums do not drift from the frame's own sum).
 */
final class OverFrames {
  /** At most this many preceding rows in a frame: each row's aggregate reads its whole frame. */
  static final long MAX_PRECEDING = 10_000;

  private OverFrames() {}

  /** The output type of a call over input columns of {@code inputTypes}. */
  static DataType type(OverCall c, DataType[] inputTypes) {
    if (c.getPreceding() < -1 || c.getPreceding() > MAX_PRECEDING) {
      throw new IllegalArgumentException("OVER call '" + c.getName() + "' has " + c.getPreceding()
          + " preceding rows; it must be between 0 and " + MAX_PRECEDING + ", or -1 for every row before");
    }
    return switch (c.getKind()) {
      case COUNT_STAR, COUNT -> DataType.BIGINT;
      case AVG -> DataType.DOUBLE;
      case SUM -> inputTypes[c.getArg()] == DataType.DOUBLE ? DataType.DOUBLE : DataType.BIGINT;
      case MIN, MAX -> inputTypes[c.getArg()];
      default -> throw new IllegalArgumentException("OVER call '" + c.getName() + "': " + c.getKind()
          + " is not an OVER aggregate; use COUNT, SUM, MIN, MAX or AVG");
    };
  }

  /** Each of {@code rows} (in order) with one aggregate per call appended after its {@code width} columns. */
  static List<Object[]> rows(List<Object[]> rows, int width, List<OverCall> calls) {
    List<Object[]> out = new ArrayList<>(rows.size());
    for (Object[] r : rows) {
      out.add(Arrays.copyOf(r, width + calls.size()));
    }
    for (int c = 0; c < calls.size(); c++) {
      OverCall call = calls.get(c);
      Frame running = new Frame(call.getKind());
      for (int i = 0; i < rows.size(); i++) {
        Frame f;
        if (call.getPreceding() < 0) {
          running.add(value(call, rows.get(i)));
          f = running;
        } else {
          f = new Frame(call.getKind());
          for (int j = (int) Math.max(0, i - call.getPreceding()); j <= i; j++) {
            f.add(value(call, rows.get(j)));
          }
        }
        out.get(i)[width + c] = f.result();
      }
    }
    return out;
  }

  private static Object value(OverCall c, Object[] row) {
    return c.getKind() == AggKind.COUNT_STAR ? Boolean.TRUE : row[c.getArg()];
  }

  /** One frame's aggregate state. */
  private static final class Frame {
    final AggKind kind;
    long count;
    long longSum;
    double doubleSum;
    boolean doubles;
    Comparable<Object> extreme;

    Frame(AggKind kind) {
      this.kind = kind;
    }

    @SuppressWarnings("unchecked")
    void add(Object v) {
      if (v == null) {
        return;
      }
      count++;
      switch (kind) {
        case SUM, AVG -> {
          if (v instanceof Double d) {
            doubles = true;
            doubleSum += d;
          } else {
            longSum += ((Number) v).longValue();
          }
        }
        case MIN, MAX -> {
          Comparable<Object> c = (Comparable<Object>) HashAggOp.normalizeZero(v);
          if (extreme == null || (kind == AggKind.MIN ? c.compareTo(extreme) < 0 : c.compareTo(extreme) > 0)) {
            extreme = c;
          }
        }
        default -> { }
      }
    }

    Object result() {
      return switch (kind) {
        case COUNT_STAR, COUNT -> count;
        case SUM -> count == 0 ? null : doubles ? doubleSum + longSum : (Object) longSum;
        case AVG -> count == 0 ? null : (doubleSum + longSum) / count;
        default -> extreme;
      };
    }
  }
}
