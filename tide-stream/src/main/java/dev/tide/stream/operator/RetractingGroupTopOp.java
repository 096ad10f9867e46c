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
import dev.tide.stream.state.StateTable;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Per group, the rows that hold the best value of the order column, ties included
 * ({@link GroupTopNode} with {@code retracting_input}), over an input that can delete and update
 * rows. The state table holds every input row with a non-null value, keyed (group key, order value,
 * input stream key), so a group's best rows are the first (ascending) or last (descending) of its
 * prefix. Inserts and updates' new rows are inserts, deletes and updates' old rows are deletes:
 * <ul>
 *   <li>an insert better than the leaders retracts them (deletes) and leads alone; an equal one
 *       joins them; a worse one is only stored;
 *   <li>a delete of a leader retracts it; when no leader remains, the group is pending until the end
 *       of the chunk, when the rows holding its best remaining value (read from state) lead. An
 *       insert at least as good as the retracted value leads at once, without the read: no remaining
 *       row is better (an update of a leader's value upwards costs no scan).
 * </ul>
 * Output is emitted as the input arrives; no group is pending at a barrier, where the state written
 * in the epoch is committed with the output it explains. VARCHAR values order by code point, as keys
 * do, when the next best is read from state.
 *
 * <p>Cache: the leaders of groups looked up since the cache was last cleared, cleared at a barrier
 * once past its bound and when the actor gains vnodes (another actor owned them meanwhile).
 * Thread-safety: confined to the actor thread.
 */
public final class RetractingGroupTopOp implements Operator {
  private static final int MAX_CACHED_GROUPS = 100_000;

  private final int tableId;
  private final int[] groupKeys;
  private final int orderColumn;
  private final boolean descending;
  private final TopOrder order;
  private final ActorContext ctx;
  private final GroupIndex<Group> groups;
  private final ChunkBuilder builder;
  private final List<Group> pending = new ArrayList<>();
  private StateTable table;

  /**
   * One group's leaders (as stored) and their value. Pending: every leader was deleted, the value is
   * the one they held, and every row left in state is worse.
   */
  private static final class Group extends TopOrder.Best {
    final Object[] key;
    final List<Object[]> rows = new ArrayList<>(1);
    boolean pending;

    Group(Object[] key) {
      this.key = key;
    }
  }

  public RetractingGroupTopOp(GroupTopNode node, DataType[] inputTypes, ActorContext ctx) {
    if (!node.getRetractingInput()) {
      throw new IllegalArgumentException("group top node with table " + node.getTableId()
          + " reads an append-only input; it is run by GroupTopOp, not RetractingGroupTopOp");
    }
    this.tableId = node.getTableId();
    this.groupKeys = node.getGroupKeysList().stream().mapToInt(Integer::intValue).toArray();
    this.orderColumn = node.getOrderColumn();
    this.descending = node.getDescending();
    this.order = new TopOrder(inputTypes[orderColumn], descending);
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
      if (!chunk.visible(i) || value.isNull(i)) {
        continue; // a null value never leads, and is not stored
      }
      Group g = groups.get(keys, i);
      if (g == null) {
        g = load(GroupIndex.key(keys, i));
        groups.put(g);
      }
      if (Op.isInsert(chunk.op(i))) {
        insert(g, value, chunk, i, out);
      } else {
        delete(g, value, chunk, i, out);
      }
    }
    for (Group g : pending) {
      if (g.pending) {
        resolve(g, out);
      }
    }
    pending.clear();
    out.emitIfAny(builder.take());
  }

  private void insert(Group g, Column value, StreamChunk chunk, int i, Emitter out) throws InterruptedException {
    Object[] row = chunk.row(i);
    table.put(row);
    int cmp = order.compare(value, i, g);
    if (cmp < 0) {
      return; // worse than the leaders (or, if pending, than the retracted ones: read at the chunk's end)
    }
    if (cmp > 0 || g.pending) {
      retractLeaders(g, out);
      order.assign(value, i, g);
      g.pending = false;
    }
    g.rows.add(row);
    out.emitIfAny(builder.appendFrom(Op.INSERT.code(), chunk, i));
  }

  private void delete(Group g, Column value, StreamChunk chunk, int i, Emitter out) throws InterruptedException {
    Object[] row = chunk.row(i);
    table.delete(row);
    if (g.pending || order.compare(value, i, g) != 0) {
      return; // not a leader
    }
    Object[] pk = normalizedPk(row);
    for (int r = 0; r < g.rows.size(); r++) {
      if (Arrays.equals(normalizedPk(g.rows.get(r)), pk)) {
        out.emitIfAny(builder.appendRow(Op.DELETE.code(), g.rows.remove(r)));
        break;
      }
    }
    if (g.rows.isEmpty()) {
      g.pending = true;
      pending.add(g);
    }
  }

  /** The row's pk values as keys compare them: -0.0 as 0.0, which the encoding makes the same state row. */
  private Object[] normalizedPk(Object[] row) {
    Object[] pk = table.pkOf(row);
    for (int k = 0; k < pk.length; k++) {
      pk[k] = HashAggOp.normalizeZero(pk[k]);
    }
    return pk;
  }

  private void retractLeaders(Group g, Emitter out) throws InterruptedException {
    for (Object[] old : g.rows) {
      out.emitIfAny(builder.appendRow(Op.DELETE.code(), old));
    }
    g.rows.clear();
  }

  /** A pending group's next leaders: the rows in state holding its best value, emitted as inserts. */
  private void resolve(Group g, Emitter out) throws InterruptedException {
    g.pending = false;
    Group fresh = load(g.key);
    if (fresh.rows.isEmpty()) {
      g.clearBest();
      return;
    }
    order.assign(fresh.rows.get(0)[orderColumn], g);
    for (Object[] row : fresh.rows) {
      g.rows.add(row);
      out.emitIfAny(builder.appendRow(Op.INSERT.code(), row));
    }
  }

  /** A group's leaders as in state: the rows holding the first (or last) value of its prefix; none if empty. */
  private Group load(Object[] key) {
    Group g = new Group(key);
    Object[] best = descending ? table.lastInPrefix(key) : table.firstInPrefix(key);
    if (best != null) {
      Object[] prefix = Arrays.copyOf(key, key.length + 1);
      prefix[key.length] = best[orderColumn];
      g.rows.addAll(table.scanPrefix(prefix));
      order.assign(best[orderColumn], g);
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
    if (!vnodes.isSubsetOf(old)) {
      groups.clear(); // leaders of regained vnodes may be stale: another actor owned them meanwhile
    }
  }
}
