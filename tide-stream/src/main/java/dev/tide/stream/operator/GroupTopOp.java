package dev.tide.stream.operator;

import dev.tide.common.chunk.ChunkBuilder;
import dev.tide.common.chunk.Column;
import dev.tide.common.chunk.Op;
import dev.tide.common.chunk.StreamChunk;
import dev.tide.common.hash.VnodeBitmap;
import dev.tide.common.types.DataType;
import dev.tide.proto.plan.GroupTopNode;
import dev.tide.stream.actor.Barrier;
import dev.tide.stream.actor.Operator;
import dev.tide.stream.actor.Watermark;
import dev.tide.stream.state.StateTable;
import java.util.ArrayList;
import java.util.List;

/**
 * Per group, the rows that hold the best value of the order column, ties included
 * ({@link GroupTopNode}), over an append-only input. A group's best value only improves, so its state
 * is its current leaders: the state table holds exactly the rows emitted and not yet retracted, keyed
 * (group key, input stream key). A row worse than the leaders is dropped; an equal one joins them
 * (insert); a better one retracts them (deletes) and leads alone (insert). Output is emitted as the
 * input arrives; state written in an epoch is committed at its barrier, with the output it explains.
 *
 * <p>Cache: the leaders of groups looked up since the cache was last cleared, cleared at a barrier
 * once past its bound (state is in the store, so dropping them is always safe) and when the actor
 * gains vnodes (another actor owned them meanwhile).
 *
 * <p>Watermarks: one on a group key column (a window) goes on to the output, and the groups below
 * it are forgotten: their leaders' state rows are deleted (their output stands), and rows that
 * still arrive for them are late and dropped. The groups with state are indexed by that column,
 * from a scan of the owned state at the first such watermark (and after a vnode change), then as
 * leaders are written. Thread-safety: confined to the actor thread.
 */
public final class GroupTopOp implements Operator {
  private static final int MAX_CACHED_GROUPS = 100_000;

  private final int tableId;
  private final int[] groupKeys;
  private final int orderColumn;
  private final TopOrder order;
  private final ActorContext ctx;
  private final GroupIndex<Leaders> groups;
  private final ChunkBuilder builder;
  private StateTable table;
  /** Position in groupKeys of the column whose watermark closes groups; -1 until one arrives. */
  private int windowKey = -1;
  private long closedBelow = Long.MIN_VALUE;
  /** The groups with state, by window (from the first watermark on a group key). */
  private WindowKeys windows;

  /** One group's best value and the rows that hold it (as stored). */
  private static final class Leaders extends TopOrder.Best {
    final List<Object[]> rows = new ArrayList<>(1);
  }

  public GroupTopOp(GroupTopNode node, DataType[] inputTypes, ActorContext ctx) {
    this.tableId = node.getTableId();
    this.groupKeys = node.getGroupKeysList().stream().mapToInt(Integer::intValue).toArray();
    this.orderColumn = node.getOrderColumn();
    this.order = new TopOrder(inputTypes[orderColumn], node.getDescending());
    this.ctx = ctx;
    this.groups = new GroupIndex<>(GroupIndex.keyTypes(inputTypes, groupKeys));
    this.builder = new ChunkBuilder(inputTypes, StreamChunk.DEFAULT_CAPACITY);
  }

  @Override
  public void open() {
    table = ctx.table(tableId);
    table.filterKeys(groupKeys.length);
  }

  @Override
  public void process(int side, StreamChunk chunk, Emitter out) throws InterruptedException {
    Column value = chunk.column(orderColumn);
    Column[] keys = GroupIndex.keyColumns(chunk, groupKeys);
    for (int i = 0; i < chunk.size(); i++) {
      if (!chunk.visible(i)) {
        continue;
      }
      if (chunk.op(i) != Op.INSERT.code()) {
        throw new IllegalStateException("group top over an append-only input received a " + Op.of(chunk.op(i))
            + ": the plan's append-only derivation is wrong for this input");
      }
      if (value.isNull(i) || late(keys, i)) {
        continue; // a null value never leads
      }
      Leaders g = groups.get(keys, i);
      if (g == null) {
        g = load(GroupIndex.key(keys, i));
        groups.put(g);
      }
      int cmp = order.compare(value, i, g);
      if (cmp < 0) {
        continue;
      }
      if (cmp > 0) {
        for (Object[] old : g.rows) {
          table.delete(old);
          out.emitIfAny(builder.appendRow(Op.DELETE.code(), old));
        }
        g.rows.clear();
        order.assign(value, i, g);
      }
      Object[] row = chunk.row(i);
      table.put(row);
      if (g.rows.isEmpty()) {
        indexGroup(row);
      }
      g.rows.add(row);
      out.emitIfAny(builder.appendFrom(Op.INSERT.code(), chunk, i));
    }
    out.emitIfAny(builder.take());
  }

  private boolean late(Column[] keys, int row) {
    return windowKey >= 0 && WindowKeys.late(keys[windowKey], row, closedBelow);
  }

  /** Records the group of a leader row in the window index (when there is one). */
  private void indexGroup(Object[] row) {
    if (windows != null) {
      windows.add(groupKey(row));
    }
  }

  private Object[] groupKey(Object[] row) {
    Object[] key = new Object[groupKeys.length];
    for (int k = 0; k < key.length; k++) {
      key[k] = row[groupKeys[k]];
    }
    return key;
  }

  @Override
  public void onWatermark(int side, Watermark watermark, Emitter out) throws InterruptedException {
    int p = WindowKeys.position(groupKeys, watermark.column());
    if (p < 0 || (windowKey >= 0 && p != windowKey)) {
      return; // one closing column; watermarks on other columns end here
    }
    if (windowKey < 0) {
      windowKey = p;
      windows = new WindowKeys(p);
    }
    if (watermark.value() > closedBelow) {
      closedBelow = watermark.value();
      List<Object[]> closed = windows.takeBelow(closedBelow, () -> table.scanOwned().stream().map(this::groupKey).toList());
      for (Object[] key : closed) {
        for (Object[] row : table.scanPrefix(key)) {
          table.delete(row);
        }
      }
      if (!closed.isEmpty()) {
        groups.clear();
      }
    }
    out.watermark(watermark);
  }

  /** A group not in the cache: its leaders in state (all hold the same value), or none. */
  private Leaders load(Object[] key) {
    Leaders g = new Leaders();
    g.rows.addAll(table.scanPrefix(key));
    if (!g.rows.isEmpty()) {
      order.assign(g.rows.get(0)[orderColumn], g);
    }
    return g;
  }

  @Override
  public void onBarrier(Barrier barrier, Emitter out) {
    table.commit(barrier.prevEpoch());
    if (groups.size() > MAX_CACHED_GROUPS) {
      groups.clear();
    }
  }

  @Override
  public void updateVnodes(VnodeBitmap old, VnodeBitmap vnodes) {
    table.updateVnodes(vnodes);
    if (windows != null) {
      windows.reset();
    }
    if (!vnodes.isSubsetOf(old)) {
      groups.clear(); // leaders of regained vnodes may be stale: another actor owned them meanwhile
    }
  }
}
