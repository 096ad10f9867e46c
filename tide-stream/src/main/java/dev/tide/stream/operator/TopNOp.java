package dev.tide.stream.operator;

import dev.tide.common.chunk.ChunkBuilder;
import dev.tide.common.chunk.Column;
import dev.tide.common.chunk.Op;
import dev.tide.common.chunk.StreamChunk;
import dev.tide.common.hash.VnodeBitmap;
import dev.tide.common.types.DataType;
import dev.tide.proto.plan.OverCall;
import dev.tide.proto.plan.RankKind;
import dev.tide.proto.plan.TopNNode;
import dev.tide.stream.actor.Barrier;
import dev.tide.stream.actor.Operator;
import dev.tide.stream.state.StateTable;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * Window functions over groups of rows in a total order ({@link TopNNode}): per group, the rows
 * numbered up to {@code limit}, each with its number (SQL: {@code ROW_NUMBER() OVER (PARTITION BY
 * ... ORDER BY ...) <= limit}, or {@code RANK()} and {@code DENSE_RANK()}, whose rows equal in the
 * order columns share a number), or, with OVER calls, every row with each call's aggregate over the
 * row's frame of preceding rows (SQL: {@code AVG(x) OVER (... ROWS BETWEEN n PRECEDING AND CURRENT
 * ROW)}). The order is the order columns (nulls greatest), then the input's stream key ascending,
 * so every run ranks and frames the same rows the same way.
 *
 * <p>State: the table keyed (group keys, input stream key) holds, over an append-only input, each
 * group's current first rows only (a row pushed out can never return: rows only arrive), and over a
 * retracting input every row of the group. A group is loaded from state whole into a sorted set the
 * first time one of its rows arrives. At each barrier, every group changed in the epoch emits the
 * difference between the output rows it emitted last and its output rows now: deletes of rows that
 * left, update pairs of rows whose number, aggregates or values changed, inserts of rows that
 * entered; then the epoch's state writes are committed with the output they explain. A group that
 * changes many times in an epoch (a popular auction's top ten) emits once, as the views downstream,
 * which commit at barriers, would see it anyway. An OVER group's output is recomputed whole when it changes: O(rows x frame).
 *
 * <p>Cache: loaded groups. At a barrier once past its bound, the groups no row arrived for during the
 * epoch go, and all of them if that is not enough; all go when the actor's vnodes change. Thread-safety: confined to the actor thread.
 */
public final class TopNOp implements Operator {
  private static final int DEFAULT_MAX_CACHED_ROWS = 500_000;
  /** Output diffs of at most this many (before, after) row pairs compare every pair instead of hashing keys. */
  private static final int SMALL_DIFF = 256;

  private final TopNNode node;
  private final long maxCachedRows;
  private final int[] groupKeys;
  private final int limit;
  private final boolean retracting;
  private final Comparator<Object[]> order;
  /** The order columns only, without the tie-break: rows it finds equal share a RANK. */
  private final Comparator<Object[]> peers;
  private final RankKind rank;
  private final int[] inputKey;
  private final ActorContext ctx;
  private final Map<List<Object>, Group> groups = new HashMap<>();
  private final Set<Group> dirty = new LinkedHashSet<>();
  private final List<OverCall> calls;
  private final ChunkBuilder builder;
  private final int width;
  private long cachedRows;
  private long generation; // counts barriers: groups not touched since the last one are evicted first
  private StateTable table;

  /** One group's rows (all of them, or over an append-only input its first ones) and the output rows emitted of them. */
  private static final class Group {
    final Object[] key;
    final TreeSet<Object[]> rows;
    List<Object[]> emitted = List.of();
    long touched; // the cache generation in which a row of the group last arrived

    Group(Object[] key, Comparator<Object[]> order) {
      this.key = key;
      this.rows = new TreeSet<>(order);
    }
  }

  public TopNOp(TopNNode node, DataType[] inputTypes, ActorContext ctx) {
    this(node, inputTypes, ctx, DEFAULT_MAX_CACHED_ROWS);
  }

  /** @param maxCachedRows rows the loaded groups hold at most after a barrier */
  TopNOp(TopNNode node, DataType[] inputTypes, ActorContext ctx, long maxCachedRows) {
    this.maxCachedRows = maxCachedRows;
    this.calls = node.getCallsList();
    if (calls.isEmpty() ? node.getLimit() < 1 || node.getLimit() > 100_000 : node.getLimit() != 0) {
      throw new IllegalArgumentException("top-n node with table " + node.getTableId() + " has limit " + node.getLimit()
          + (calls.isEmpty() ? "; it must be between 1 and 100000" : " and OVER calls; with calls the limit must be 0 (every row)"));
    }
    this.node = node;
    this.groupKeys = node.getGroupKeysList().stream().mapToInt(Integer::intValue).toArray();
    this.limit = calls.isEmpty() ? (int) node.getLimit() : Integer.MAX_VALUE;
    this.retracting = node.getRetractingInput();
    this.inputKey = node.getInputKeyList().stream().mapToInt(Integer::intValue).toArray();
    this.ctx = ctx;
    this.width = inputTypes.length;
    DataType[] out = Arrays.copyOf(inputTypes, width + Math.max(1, calls.size()));
    if (calls.isEmpty()) {
      out[width] = DataType.BIGINT;
    }
    for (int c = 0; c < calls.size(); c++) {
      out[width + c] = OverFrames.type(calls.get(c), inputTypes);
    }
    this.builder = new ChunkBuilder(out, StreamChunk.DEFAULT_CAPACITY);
    Comparator<Object[]> c = (a, b) -> 0;
    for (int i = 0; i < node.getOrderColumnsCount(); i++) {
      int col = node.getOrderColumns(i);
      Comparator<Object[]> byCol = (a, b) -> compare(a[col], b[col]);
      c = c.thenComparing(node.getDescending(i) ? byCol.reversed() : byCol);
    }
    this.peers = c;
    for (int k : inputKey) {
      c = c.thenComparing((a, b) -> compare(a[k], b[k]));
    }
    this.order = c;
    this.rank = node.getRank();
  }

  /** Values of one column: nulls greatest, -0.0 equal to 0.0 (as in keys). */
  @SuppressWarnings({"unchecked", "rawtypes"})
  private static int compare(Object a, Object b) {
    if (a == null || b == null) {
      return a == null ? (b == null ? 0 : 1) : -1;
    }
    return ((Comparable) HashAggOp.normalizeZero(a)).compareTo(HashAggOp.normalizeZero(b));
  }

  @Override
  public void open() {
    table = ctx.table(node.getTableId());
    table.filterKeys(groupKeys.length);
  }

  @Override
  public void process(int side, StreamChunk chunk, Emitter out) throws InterruptedException {
    for (int i = 0; i < chunk.size(); i++) {
      if (!chunk.visible(i)) {
        continue;
      }
      Object[] row = chunk.row(i);
      Group g = group(row);
      g.touched = generation;
      boolean changed;
      if (Op.isInsert(chunk.op(i))) {
        changed = insert(g, row);
      } else {
        if (!retracting) {
          throw new IllegalStateException("top-n over an append-only input received a " + Op.of(chunk.op(i))
              + ": the plan's append-only derivation is wrong for this input");
        }
        changed = g.rows.remove(row);
        if (changed) {
          cachedRows--;
          table.delete(row);
        }
      }
      if (changed) {
        dirty.add(g);
      }
    }
  }

  /** Adds an inserted row to its group; false if the group's rows are as before (a row past the first ones). */
  private boolean insert(Group g, Object[] row) {
    if (!g.rows.add(row)) {
      return false;
    }
    cachedRows++;
    if (!retracting && g.rows.size() > limit) {
      // Over an append-only input a row's number only grows: rows numbered past the limit go for good.
      int keep = rank == RankKind.ROW_NUMBER ? limit : numbered(g.rows);
      boolean stored = true;
      while (g.rows.size() > keep) {
        Object[] last = g.rows.pollLast();
        cachedRows--;
        if (last == row) {
          stored = false; // not among the first rows: never stored
        } else {
          table.delete(last);
        }
      }
      if (!stored) {
        return false;
      }
    }
    table.put(row);
    return true;
  }

  private Group group(Object[] row) {
    Object[] key = new Object[groupKeys.length];
    for (int k = 0; k < key.length; k++) {
      key[k] = HashAggOp.normalizeZero(row[groupKeys[k]]);
    }
    List<Object> k = Arrays.asList(key);
    Group g = groups.get(k);
    if (g == null) {
      g = new Group(key, order);
      for (Object[] stored : table.scanPrefix(key)) {
        g.rows.add(stored);
      }
      cachedRows += g.rows.size();
      g.emitted = outputs(g);
      groups.put(k, g);
    }
    return g;
  }

  /** The group's output rows now: its first rows numbered, or every row with its frames' aggregates. */
  private List<Object[]> outputs(Group g) {
    if (!calls.isEmpty()) {
      return OverFrames.rows(new ArrayList<>(g.rows), width, calls);
    }
    List<Object[]> out = new ArrayList<>(Math.min(limit, g.rows.size()));
    long number = 0;
    int position = 0;
    Object[] previous = null;
    for (Object[] r : g.rows) {
      number = number(number, ++position, previous, r);
      previous = r;
      if (number > limit) {
        break;
      }
      Object[] numbered = Arrays.copyOf(r, width + 1);
      numbered[width] = number;
      out.add(numbered);
    }
    return out;
  }

  /** How many of the first rows are numbered up to the limit (RANK, DENSE_RANK: ties of the last one included). */
  private int numbered(TreeSet<Object[]> rows) {
    long number = 0;
    int position = 0;
    Object[] previous = null;
    for (Object[] r : rows) {
      number = number(number, position + 1, previous, r);
      previous = r;
      if (number > limit) {
        break;
      }
      position++;
    }
    return position;
  }

  /** The number of {@code row}, at 1-based {@code position}, after {@code previous} numbered {@code previousNumber}. */
  private long number(long previousNumber, int position, Object[] previous, Object[] row) {
    if (rank != RankKind.ROW_NUMBER && previous != null && peers.compare(previous, row) == 0) {
      return previousNumber; // a tie shares its number
    }
    return rank == RankKind.DENSE_RANK ? previousNumber + 1 : position;
  }

  /** Emits the difference between the output rows the group emitted last and those it has now. */
  private void emitChanges(Group g, Emitter out) throws InterruptedException {
    List<Object[]> now = outputs(g);
    List<Object[]> emitted = g.emitted;
    // Small outputs (a top 10) compare every pair; large ones index their rows by stream key.
    boolean small = emitted.size() * now.size() <= SMALL_DIFF;
    Map<List<Object>, Integer> before = small ? null : byPk(emitted);
    Map<List<Object>, Integer> after = small ? null : byPk(now);
    for (Object[] r : emitted) {
      if (indexOfPk(now, after, r) < 0) {
        out.emitIfAny(builder.appendRow(Op.DELETE.code(), r));
      }
    }
    for (Object[] r : now) {
      int was = indexOfPk(emitted, before, r);
      if (was < 0) {
        out.emitIfAny(builder.appendRow(Op.INSERT.code(), r));
      } else if (!Arrays.equals(emitted.get(was), r)) {
        if (builder.size() >= StreamChunk.DEFAULT_CAPACITY - 1) {
          out.emitIfAny(builder.take()); // an update pair stays in one chunk
        }
        out.emitIfAny(builder.appendRow(Op.UPDATE_DELETE.code(), emitted.get(was)));
        out.emitIfAny(builder.appendRow(Op.UPDATE_INSERT.code(), r));
      }
    }
    g.emitted = now;
  }

  private Map<List<Object>, Integer> byPk(List<Object[]> rows) {
    Map<List<Object>, Integer> index = new HashMap<>();
    for (int i = 0; i < rows.size(); i++) {
      index.put(pk(rows.get(i)), i);
    }
    return index;
  }

  /** The index in {@code rows} (indexed by {@code index}, or null to scan them) of the row with {@code row}'s stream key, or -1. */
  private int indexOfPk(List<Object[]> rows, Map<List<Object>, Integer> index, Object[] row) {
    if (index != null) {
      return index.getOrDefault(pk(row), -1);
    }
    for (int i = 0; i < rows.size(); i++) {
      Object[] r = rows.get(i);
      boolean same = true;
      for (int k = 0; k < inputKey.length && same; k++) {
        same = java.util.Objects.equals(HashAggOp.normalizeZero(r[inputKey[k]]), HashAggOp.normalizeZero(row[inputKey[k]]));
      }
      if (same) {
        return i;
      }
    }
    return -1;
  }

  private List<Object> pk(Object[] row) {
    Object[] k = new Object[inputKey.length];
    for (int i = 0; i < k.length; i++) {
      k[i] = HashAggOp.normalizeZero(row[inputKey[i]]);
    }
    return Arrays.asList(k);
  }

  @Override
  public void onBarrier(Barrier barrier, Emitter out) throws InterruptedException {
    for (Group g : dirty) {
      emitChanges(g, out);
    }
    dirty.clear();
    out.emitIfAny(builder.take());
    table.commit(barrier.prevEpoch());
    if (cachedRows > maxCachedRows) {
      // Groups idle during this epoch go first, so the groups rows are arriving for stay loaded (every
      // group is clean here: its output went out above).
      groups.values().removeIf(g -> {
        boolean idle = g.touched < generation;
        if (idle) {
          cachedRows -= g.rows.size();
        }
        return idle;
      });
      if (cachedRows > maxCachedRows) {
        groups.clear();
        cachedRows = 0;
      }
    }
    generation++;
  }

  @Override
  public void updateVnodes(VnodeBitmap old, VnodeBitmap vnodes) {
    table.updateVnodes(vnodes);
    groups.clear(); // groups of lost vnodes go; those of regained ones may be stale
    cachedRows = 0;
  }
}
