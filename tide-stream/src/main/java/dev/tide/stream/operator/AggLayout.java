package dev.tide.stream.operator;

import dev.tide.common.types.DataType;
import dev.tide.common.types.Field;
import dev.tide.proto.plan.AggCall;
import java.util.ArrayList;
import java.util.List;

/**
 * Layout of a hash aggregation's result-table row after the group key: {@code _row_count}, then per
 * call its state columns — COUNT(*)/COUNT: count; SUM and AVG: sum, non-null count; MIN/MAX: the
 * current extreme (over an input that can retract, the full multiset lives in the call's min/max
 * table); COUNT(DISTINCT): the count of distinct values (their multiplicities are in the call's
 * own table).
 */
public final class AggLayout {
  private AggLayout() {}

  /** Type of the running sum of a SUM/AVG over {@code arg}. */
  public static DataType sumType(DataType arg) {
    return arg == DataType.DOUBLE ? DataType.DOUBLE : DataType.BIGINT;
  }

  /**
   * Position of each call's first state column among {@link #stateFields} (0 is {@code _row_count}):
   * the count of COUNT(*)/COUNT, the sum of SUM/AVG (its count follows), the extreme of MIN/MAX.
   */
  public static int[] stateOffsets(List<AggCall> calls) {
    int[] offsets = new int[calls.size()];
    int p = 1;
    for (int i = 0; i < offsets.length; i++) {
      offsets[i] = p;
      p += switch (calls.get(i).getKind()) {
        case SUM, AVG -> 2;
        default -> 1;
      };
    }
    return offsets;
  }

  public static List<Field> stateFields(List<AggCall> calls, DataType[] inputTypes) {
    List<Field> out = new ArrayList<>();
    out.add(new Field("_row_count", DataType.BIGINT));
    for (int i = 0; i < calls.size(); i++) {
      AggCall c = calls.get(i);
      switch (c.getKind()) {
        case COUNT_STAR, COUNT, COUNT_DISTINCT -> out.add(new Field("_s" + i + "_count", DataType.BIGINT));
        case SUM, AVG -> {
          out.add(new Field("_s" + i + "_sum", sumType(inputTypes[c.getArg()])));
          out.add(new Field("_s" + i + "_count", DataType.BIGINT));
        }
        case MIN, MAX -> out.add(new Field("_s" + i + "_value", inputTypes[c.getArg()]));
        default -> throw new IllegalArgumentException("unknown aggregate " + c.getKind());
      }
    }
    return out;
  }
}
