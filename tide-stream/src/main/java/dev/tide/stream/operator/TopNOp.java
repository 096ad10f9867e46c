package dev.tide.stream.operator;

import dev.tide.common.chunk.ChunkBuilder;
import dev.tide.common.chunk.Column;
import dev.tide.common.chunk.Op;
import dev.tide.common.chunk.StreamChunk;
import dev.tide.common.hash.VnodeBitmap;
import dev.tide.common.types.DataType;
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
 * Per group, the first {@code limit} rows in a total order, each with its row number ({@link
 * TopNNode}; SQL: {@code ROW_NUMBER() OVER (PARTITION BY ... ORDER BY ...) <= limit}). The order is
 * the order columns (nulls greatest), then the input's stream key ascending, so every run ranks the
 * same rows the same way.
 *
 * <p>State: the table keyed (group keys, input stream key) holds, over an append-only input, each
 * group's current first rows only (a row pushed out can never return: rows only arrive), and over a
 * retracting input every row of the group. A group is loaded from state whole into a sorted set the
 * first time one of its rows arrives. After each chunk, every group the chunk changed emits the
 * difference between the numbered rows it emitted last and its first rows now: deletes of rows that
 * left, update pairs of rows whose number or values changed, inserts of rows that entered. Nothing is pending
 * at a barrier, where the epoch's state writes are committed with the output they explain.
 *
 * <p>Cache: loaded groups, cleared at a barrier once past its bound and when the actor's vnodes
 * change. Thread-safety: confined to the actor thread.
 */
public final class TopNOp implements Operator {
  private static final int MAX_CACHED_ROWS = 500_000;

  private final TopNNode node;
  private final int[] groupKeys;
  private final int limit;
  private final boolean retracting;
  private final Comparator<Object[]> order;
  private final int[] inputKey;
  private final ActorContext ctx;
  private final Map<List<Object>, Group> groups = new HashMap<>();
  private final Set<Group> dirty = new LinkedHashSet<>();
  private final ChunkBuilder builder;
  private final int width;
  private long cachedRows;
  private StateTable table;

  /** One group's rows (all of them, or over an append-only input its first ones) and what was emitted of them. */
  private static final class Group {
    final Object[] key;
    final TreeSet<Object[]> rows;
    List<Object[]> emitted = List.of();

    Group(Object[] key, Comparator<Object[]> order) {
      this.key = key;
      this.rows = new TreeSet<>(order);
    }
  }

  public TopNOp(TopNNode node, DataType[] inputTypes, ActorContext ctx) {
    if (node.getLimit() < 1 || node.getLimit() > 100_000) {
      throw new IllegalArgumentException("top-n node with table " + node.getTableId() + " has limit " + node.getLimit()
          + "; it must be between 1 and 100000");
    }
    this.node = node;
    this.groupKeys = node.getGroupKeysList().stream().mapToInt(Integer::intValue).toArray();
    this.limit = (int) node.getLimit();
    this.retracting = node.getRetractingInput();
    this.inputKey = node.getInputKeyList().stream().mapToInt(Integer::intValue).toArray();
    this.ctx = ctx;
    this.width = inputTypes.length;
    DataType[] out = Arrays.copyOf(inputTypes, width + 1);
    out[width] = DataType.BIGINT;
    this.builder = new ChunkBuilder(out, StreamChunk.DEFAULT_CAPACITY);
    Comparator<Object[]> c = (a, b) -> 0;
    for (int i = 0; i < node.getOrderColumnsCount(); i++) {
      int col = node.getOrderColumns(i);
      Comparator<Object[]> byCol = (a, b) -> compare(a[col], b[col]);
      c = c.thenComparing(node.getDescending(i) ? byCol.reversed() : byCol);
    }
    for (int k : inputKey) {
      c = c.thenComparing((a, b) -> compare(a[k], b[k]));
    }
    this.order = c;
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
      if (Op.isInsert(chunk.op(i))) {
        insert(g, row);
      } else {
        if (!retracting) {
          throw new IllegalStateException("top-n over an append-only input received a " + Op.of(chunk.op(i))
              + ": the plan's append-only derivation is wrong for this input");
        }
        if (g.rows.remove(row)) {
          cachedRows--;
          table.delete(row);
        }
      }
      dirty.add(g);
    }
    for (Group g : dirty) {
      emitChanges(g, out);
    }
    dirty.clear();
    out.emitIfAny(builder.take());
  }

  private void insert(Group g, Object[] row) {
    if (!g.rows.add(row)) {
      return;
    }
    cachedRows++;
    if (!retracting && g.rows.size() > limit) {
      Object[] last = g.rows.pollLast();
      cachedRows--;
      if (last == row) {
        return; // not among the first rows: never stored
      }
      table.delete(last);
    }
    table.put(row);
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
      g.emitted = first(g);
      groups.put(k, g);
    }
    return g;
  }

  private List<Object[]> first(Group g) {
    List<Object[]> out = new ArrayList<>(Math.min(limit, g.rows.size()));
    for (Object[] r : g.rows) {
      if (out.size() == limit) {
        break;
      }
      out.add(r);
    }
    return out;
  }

  /** Emits the difference between what the group emitted last and its first rows now. */
  private void emitChanges(Group g, Emitter out) throws InterruptedException {
    List<Object[]> now = first(g);
    Map<List<Object>, Integer> before = new HashMap<>();
    for (int i = 0; i < g.emitted.size(); i++) {
      before.put(pk(g.emitted.get(i)), i);
    }
    Map<List<Object>, Integer> after = new HashMap<>();
    for (int i = 0; i < now.size(); i++) {
      after.put(pk(now.get(i)), i);
    }
    for (int i = 0; i < g.emitted.size(); i++) {
      if (!after.containsKey(pk(g.emitted.get(i)))) {
        emit(out, Op.DELETE, g.emitted.get(i), i);
      }
    }
    for (int i = 0; i < now.size(); i++) {
      Integer was = before.get(pk(now.get(i)));
      if (was == null) {
        emit(out, Op.INSERT, now.get(i), i);
      } else if (was != i || !Arrays.equals(g.emitted.get(was), now.get(i))) {
        if (builder.size() >= StreamChunk.DEFAULT_CAPACITY - 1) {
          out.emitIfAny(builder.take()); // an update pair stays in one chunk
        }
        emit(out, Op.UPDATE_DELETE, g.emitted.get(was), was);
        emit(out, Op.UPDATE_INSERT, now.get(i), i);
      }
    }
    g.emitted = now;
  }

  private List<Object> pk(Object[] row) {
    Object[] k = new Object[inputKey.length];
    for (int i = 0; i < k.length; i++) {
      k[i] = HashAggOp.normalizeZero(row[inputKey[i]]);
    }
    return Arrays.asList(k);
  }

  private void emit(Emitter out, Op op, Object[] row, int index) throws InterruptedException {
    Object[] r = Arrays.copyOf(row, width + 1);
    r[width] = (long) index + 1;
    out.emitIfAny(builder.appendRow(op.code(), r));
  }

  @Override
  public void onBarrier(Barrier barrier, Emitter out) {
    table.commit(barrier.prevEpoch());
    if (cachedRows > MAX_CACHED_ROWS) {
      groups.clear();
      cachedRows = 0;
    }
  }

  @Override
  public void updateVnodes(VnodeBitmap old, VnodeBitmap vnodes) {
    table.updateVnodes(vnodes);
    groups.clear(); // groups of lost vnodes go; those of regained ones may be stale
    cachedRows = 0;
  }
}
