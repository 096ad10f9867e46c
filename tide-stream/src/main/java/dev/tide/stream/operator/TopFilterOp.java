package dev.tide.stream.operator;

import dev.tide.common.chunk.Column;
import dev.tide.common.chunk.Op;
import dev.tide.common.chunk.StreamChunk;
import dev.tide.common.types.DataType;
import dev.tide.proto.plan.TopFilterNode;
import dev.tide.stream.actor.Barrier;
import dev.tide.stream.actor.Operator;
import dev.tide.stream.actor.Watermark;

/**
 * The local phase of a group top ({@link TopFilterNode}), before its exchange: passes a row only if
 * its value is at least as good as every value this actor passed on in its group, and drops rows
 * with a null value. A dropped row can never lead: a better row of its group went downstream before
 * it, so that row is in the committed state or, after a recovery, replayed along with it. Keeps no
 * state; the best values are forgotten at a barrier once there are too many groups, which only lets
 * more rows through. Thread-safety: confined to the actor thread.
 */
public final class TopFilterOp implements Operator {
  private static final int MAX_GROUPS = 100_000;

  private final int[] groupKeys;
  private final int orderColumn;
  private final TopOrder order;
  private final GroupIndex<TopOrder.Best> groups;

  public TopFilterOp(TopFilterNode node, DataType[] inputTypes) {
    this.groupKeys = node.getGroupKeysList().stream().mapToInt(Integer::intValue).toArray();
    this.orderColumn = node.getOrderColumn();
    this.order = new TopOrder(inputTypes[orderColumn], node.getDescending());
    DataType[] keyTypes = new DataType[groupKeys.length];
    for (int k = 0; k < keyTypes.length; k++) {
      keyTypes[k] = inputTypes[groupKeys[k]];
    }
    this.groups = new GroupIndex<>(keyTypes);
  }

  @Override
  public void onWatermark(int side, Watermark watermark, Emitter out) throws InterruptedException {
    out.watermark(watermark);
  }

  @Override
  public void process(int side, StreamChunk chunk, Emitter out) throws InterruptedException {
    int n = chunk.size();
    Column value = chunk.column(orderColumn);
    Column[] keys = new Column[groupKeys.length];
    for (int k = 0; k < keys.length; k++) {
      keys[k] = chunk.column(groupKeys[k]);
    }
    int[] kept = new int[n];
    int m = 0;
    for (int i = 0; i < n; i++) {
      if (!chunk.visible(i)) {
        continue;
      }
      if (chunk.op(i) != Op.INSERT.code()) {
        throw new IllegalStateException("top filter over an append-only input received a " + Op.of(chunk.op(i))
            + ": the plan's append-only derivation is wrong for this input");
      }
      if (value.isNull(i)) {
        continue;
      }
      TopOrder.Best best = groups.get(keys, i);
      if (best == null) {
        best = new TopOrder.Best();
        groups.put(best);
      }
      int cmp = order.compare(value, i, best);
      if (cmp >= 0) {
        if (cmp > 0) {
          order.assign(value, i, best);
        }
        kept[m++] = i;
      }
    }
    if (m == n) {
      out.emit(chunk);
    } else if (m > 0) {
      // Few rows pass once a group's best is known: copying them beats shipping the whole chunk.
      out.emit(chunk.gather(kept, m));
    }
  }

  @Override
  public void onBarrier(Barrier barrier, Emitter out) {
    if (groups.size() > MAX_GROUPS) {
      groups.clear();
    }
  }
}
