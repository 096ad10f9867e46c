package dev.tide.stream.operator;

import dev.tide.common.chunk.ChunkBuilder;
import dev.tide.common.chunk.Column;
import dev.tide.common.chunk.ColumnBuilder;
import dev.tide.common.chunk.IntColumn;
import dev.tide.common.chunk.LongColumn;
import dev.tide.common.chunk.Op;
import dev.tide.common.chunk.StreamChunk;
import dev.tide.common.chunk.StringColumn;
import dev.tide.common.types.DataType;
import dev.tide.common.types.Field;
import dev.tide.proto.plan.AggCall;
import dev.tide.proto.plan.AggKind;
import dev.tide.proto.plan.LocalAggNode;
import dev.tide.stream.actor.Operator;
import dev.tide.stream.actor.Watermark;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The first phase of a two-phase aggregation: combines the rows of each chunk by group and emits, per
 * group of the chunk, one INSERT row with the group key and the group's partial states in the
 * {@link AggLayout} of the final aggregation's result table: {@code _row_count} and count deltas
 * signed by the input ops, sums of the signed values, the chunk's extreme for MIN/MAX (only over an
 * append-only input). A group whose deltas are all zero (inserted and retracted in the same chunk)
 * emits nothing. The final {@link HashAggOp} (partial input) adds the rows to its groups, which leaves
 * it in the state it would reach from the raw rows, so its output at each barrier is unchanged.
 *
 * <p>Where chunks hardly combine (most groups have one row), hashing costs more than it saves: after
 * {@value #PROBE_CHUNKS} chunks that shrank by less than a tenth, the next {@value #BYPASS_CHUNKS}
 * chunks pass through row by row, each row turned into its own partial states without hashing; then
 * it measures again.
 *
 * <p>Stateless across chunks: a barrier finds nothing pending, and recovery and rescaling have
 * nothing to restore. Sums are of integers only (the compiler does not split a DOUBLE sum, whose
 * rounding depends on the order of additions). Thread-safety: confined to the actor's thread.
 */
public final class LocalAggOp implements Operator {
  static final int PROBE_CHUNKS = 8;
  static final int BYPASS_CHUNKS = 256;

  private final int[] groupKeys;
  private final AggKind[] kinds;
  private final int[] args;
  private final LongKeyMap<Partial> longGroups; // null unless every key column is an integer or a string
  private final boolean[] stringKey; // per key column: a string, found by its id within the chunk
  private final List<Map<String, Long>> stringIds = new ArrayList<>(); // per key column: the chunk's strings -> id
  private final int[] idRow; // per string key column: the row whose id probe holds (-1: none yet in this chunk)
  private final Map<List<Object>, Partial> boxedGroups = new HashMap<>();
  private final List<Partial> order = new ArrayList<>();
  private final long[] probe;
  private final ChunkBuilder builder;
  private final DataType[] outTypes;
  private boolean bypass;
  private int chunksLeft = PROBE_CHUNKS; // in the current phase (measuring or bypassing)
  private long measuredRows;
  private long measuredGroups;

  /** Partial states of one group within the current chunk. */
  private static final class Partial {
    final int firstRow;
    long rowCount;
    final long[] counts;
    final long[] sums;
    final Object[] extremes;

    Partial(int firstRow, int calls) {
      this.firstRow = firstRow;
      this.counts = new long[calls];
      this.sums = new long[calls];
      this.extremes = new Object[calls];
    }

    boolean isZero() {
      if (rowCount != 0) {
        return false;
      }
      for (int c = 0; c < counts.length; c++) {
        if (counts[c] != 0 || sums[c] != 0 || extremes[c] != null) {
          return false;
        }
      }
      return true;
    }
  }

  public LocalAggOp(LocalAggNode node, DataType[] inputTypes) {
    this.groupKeys = node.getGroupKeysList().stream().mapToInt(Integer::intValue).toArray();
    List<AggCall> calls = node.getCallsList();
    this.kinds = new AggKind[calls.size()];
    this.args = new int[calls.size()];
    for (int c = 0; c < kinds.length; c++) {
      kinds[c] = calls.get(c).getKind();
      args[c] = calls.get(c).getArg();
      if ((kinds[c] == AggKind.SUM || kinds[c] == AggKind.AVG) && inputTypes[args[c]] == DataType.DOUBLE) {
        throw new IllegalArgumentException("local aggregation of " + kinds[c] + " over DOUBLE column " + args[c]
            + " refused: pre-summing doubles changes their rounding; the compiler must not split this aggregation");
      }
    }
    boolean longs = true;
    this.stringKey = new boolean[groupKeys.length];
    for (int k = 0; k < groupKeys.length; k++) {
      DataType t = inputTypes[groupKeys[k]];
      stringKey[k] = t == DataType.VARCHAR;
      longs &= t == DataType.INT || t == DataType.BIGINT || t == DataType.TIMESTAMP || stringKey[k];
      stringIds.add(stringKey[k] ? new HashMap<>() : null);
    }
    this.longGroups = longs ? new LongKeyMap<>(groupKeys.length) : null;
    this.idRow = new int[groupKeys.length];
    Arrays.fill(idRow, -1);
    this.probe = new long[groupKeys.length];
    this.outTypes = outputTypes(node, inputTypes);
    this.builder = new ChunkBuilder(outTypes, StreamChunk.DEFAULT_CAPACITY);
  }

  /** Group key types, then the result table's state columns ({@link AggLayout#stateFields}). */
  public static DataType[] outputTypes(LocalAggNode node, DataType[] inputTypes) {
    List<Field> state = AggLayout.stateFields(node.getCallsList(), inputTypes);
    DataType[] out = new DataType[node.getGroupKeysCount() + state.size()];
    for (int i = 0; i < node.getGroupKeysCount(); i++) {
      out[i] = inputTypes[node.getGroupKeys(i)];
    }
    for (int i = 0; i < state.size(); i++) {
      out[node.getGroupKeysCount() + i] = state.get(i).type();
    }
    return out;
  }

  /** A watermark on a group key goes on to its output column (group keys lead the output); others end here. */
  @Override
  public void onWatermark(int side, Watermark watermark, Emitter out) throws InterruptedException {
    for (int k = 0; k < groupKeys.length; k++) {
      if (groupKeys[k] == watermark.column()) {
        out.watermark(watermark.on(k));
      }
    }
  }

  @Override
  public void process(int side, StreamChunk chunk, Emitter out) throws InterruptedException {
    if (bypass) {
      out.emit(rowByRow(chunk));
      if (--chunksLeft == 0) {
        bypass = false;
        chunksLeft = PROBE_CHUNKS;
      }
      return;
    }
    Column[] keyColumns = new Column[groupKeys.length];
    for (int k = 0; k < keyColumns.length; k++) {
      keyColumns[k] = chunk.column(groupKeys[k]);
    }
    Column[] argColumns = new Column[kinds.length];
    for (int c = 0; c < kinds.length; c++) {
      argColumns[c] = kinds[c] == AggKind.COUNT_STAR ? null : chunk.column(args[c]);
    }
    int n = chunk.size();
    for (int i = 0; i < n; i++) {
      if (!chunk.visible(i)) {
        continue;
      }
      int sign = Op.sign(chunk.op(i));
      Partial p = partial(keyColumns, i);
      p.rowCount += sign;
      for (int c = 0; c < kinds.length; c++) {
        accumulate(p, c, argColumns[c], i, sign);
      }
    }
    measuredRows += chunk.cardinality();
    measuredGroups += order.size();
    for (Partial p : order) {
      if (!p.isZero()) {
        append(p, keyColumns, out);
      }
    }
    if (--chunksLeft == 0) {
      bypass = measuredGroups * 10 > measuredRows * 9;
      chunksLeft = bypass ? BYPASS_CHUNKS : PROBE_CHUNKS;
      measuredRows = 0;
      measuredGroups = 0;
    }
    order.clear();
    boxedGroups.clear();
    if (longGroups != null) {
      longGroups.clear();
      stringIds.forEach(m -> {
        if (m != null) {
          m.clear();
        }
      });
      Arrays.fill(idRow, -1);
    }
    out.emitIfAny(builder.take());
  }

  /** Each row as its own partial states: the key columns as they are, deltas from the row's op and values. */
  private StreamChunk rowByRow(StreamChunk chunk) {
    int n = chunk.size();
    long[] signs = new long[n];
    for (int i = 0; i < n; i++) {
      signs[i] = Op.sign(chunk.op(i));
    }
    Column[] cols = new Column[outTypes.length];
    int col = 0;
    for (int k : groupKeys) {
      cols[col++] = chunk.column(k);
    }
    cols[col++] = new LongColumn(DataType.BIGINT, signs, n, null);
    for (int c = 0; c < kinds.length; c++) {
      switch (kinds[c]) {
        case COUNT_STAR -> cols[col++] = new LongColumn(DataType.BIGINT, signs, n, null);
        case COUNT -> cols[col++] = new LongColumn(DataType.BIGINT, nonNullSigns(chunk.column(args[c]), signs), n, null);
        case SUM, AVG -> {
          Column arg = chunk.column(args[c]);
          long[] sums = new long[n];
          for (int i = 0; i < n; i++) {
            if (!arg.isNull(i)) {
              sums[i] = signs[i] * (arg instanceof LongColumn l ? l.getLong(i) : ((IntColumn) arg).getInt(i));
            }
          }
          cols[col++] = new LongColumn(DataType.BIGINT, sums, n, null);
          cols[col++] = new LongColumn(DataType.BIGINT, nonNullSigns(arg, signs), n, null);
        }
        default -> {
          for (int i = 0; i < n; i++) {
            if (signs[i] < 0 && chunk.visible(i)) {
              throw new IllegalStateException("local " + kinds[c] + " of column " + args[c]
                  + " received a retraction: the compiler splits MIN/MAX only over an append-only input");
            }
          }
          cols[col++] = chunk.column(args[c]);
        }
      }
    }
    byte[] ops = new byte[n];
    Arrays.fill(ops, Op.INSERT.code());
    return new StreamChunk(ops, cols, n, chunk.visibility());
  }

  private static long[] nonNullSigns(Column arg, long[] signs) {
    long[] out = new long[signs.length];
    for (int i = 0; i < out.length; i++) {
      out[i] = arg.isNull(i) ? 0 : signs[i];
    }
    return out;
  }

  private void accumulate(Partial p, int c, Column arg, int row, int sign) {
    AggKind kind = kinds[c];
    if (kind == AggKind.COUNT_STAR) {
      p.counts[c] += sign;
      return;
    }
    if (arg.isNull(row)) {
      return;
    }
    switch (kind) {
      case COUNT -> p.counts[c] += sign;
      case SUM, AVG -> {
        p.counts[c] += sign;
        p.sums[c] += sign * (arg instanceof LongColumn l ? l.getLong(row) : ((IntColumn) arg).getInt(row));
      }
      default -> {
        if (sign < 0) {
          throw new IllegalStateException("local " + kind + " of column " + args[c]
              + " received a retraction: the compiler splits MIN/MAX only over an append-only input");
        }
        Object current = p.extremes[c];
        if (arg instanceof LongColumn l && current != null) {
          long v = l.getLong(row); // compared unboxed: boxed only when it improves
          if (kind == AggKind.MIN ? v < (Long) current : v > (Long) current) {
            p.extremes[c] = v;
          }
          return;
        }
        Object v = arg.get(row);
        if (current == null || better(kind, v, current)) {
          p.extremes[c] = v;
        }
      }
    }
  }

  @SuppressWarnings({"unchecked", "rawtypes"})
  private static boolean better(AggKind kind, Object v, Object current) {
    int cmp = ((Comparable) v).compareTo(current);
    return kind == AggKind.MIN ? cmp < 0 : cmp > 0;
  }

  private Partial partial(Column[] keyColumns, int row) {
    if (longGroups != null && probeOf(keyColumns, row)) {
      Partial p = longGroups.get(probe);
      if (p == null) {
        p = new Partial(row, kinds.length);
        longGroups.put(probe, p);
        order.add(p);
      }
      return p;
    }
    Object[] key = new Object[keyColumns.length];
    for (int k = 0; k < key.length; k++) {
      key[k] = HashAggOp.normalizeZero(keyColumns[k].get(row));
    }
    return boxedGroups.computeIfAbsent(Arrays.asList(key), k -> {
      Partial p = new Partial(row, kinds.length);
      order.add(p);
      return p;
    });
  }

  /**
   * Fills {@link #probe} with row {@code row}'s key: integers as they are, strings by their id within
   * the chunk (a string equal to the last one looked up reuses its id without decoding); false if a key is null.
   */
  private boolean probeOf(Column[] keyColumns, int row) {
    for (int k = 0; k < keyColumns.length; k++) {
      Column c = keyColumns[k];
      if (c.isNull(row)) {
        return false;
      }
      if (!stringKey[k]) {
        probe[k] = c instanceof LongColumn l ? l.getLong(row) : ((IntColumn) c).getInt(row);
      } else if (idRow[k] < 0 || !((StringColumn) c).sameBytes(idRow[k], row)) {
        Map<String, Long> ids = stringIds.get(k);
        probe[k] = ids.computeIfAbsent(((StringColumn) c).getString(row), x -> (long) ids.size());
        idRow[k] = row;
      } // else probe[k] still holds the id of row idRow[k] (only this column's lookups write it)
    }
    return true;
  }


  private void append(Partial p, Column[] keyColumns, Emitter out) throws InterruptedException {
    int col = 0;
    for (Column k : keyColumns) {
      builder.column(col++).appendFrom(k, p.firstRow);
    }
    ((ColumnBuilder.Longs) builder.column(col++)).append(p.rowCount);
    for (int c = 0; c < kinds.length; c++) {
      switch (kinds[c]) {
        case COUNT_STAR, COUNT -> ((ColumnBuilder.Longs) builder.column(col++)).append(p.counts[c]);
        case SUM, AVG -> {
          ((ColumnBuilder.Longs) builder.column(col++)).append(p.sums[c]);
          ((ColumnBuilder.Longs) builder.column(col++)).append(p.counts[c]);
        }
        default -> builder.column(col++).appendObject(p.extremes[c]);
      }
    }
    out.emitIfAny(builder.finishRow(Op.INSERT.code()));
  }
}
