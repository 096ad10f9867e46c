package dev.tide.stream.operator;

import dev.tide.common.chunk.Op;
import dev.tide.common.chunk.StreamChunk;
import dev.tide.common.hash.VnodeBitmap;
import dev.tide.stream.actor.Barrier;
import dev.tide.stream.actor.Operator;
import dev.tide.stream.state.StateTable;

/** Applies a changelog to the view's table (upsert by primary key, delete by key) and passes it on. */
public final class MaterializeOp implements Operator {
  private final int tableId;
  private final ActorContext ctx;
  private StateTable table;
  private int[] vnodes;

  public MaterializeOp(int tableId, ActorContext ctx) {
    this.tableId = tableId;
    this.ctx = ctx;
  }

  @Override
  public void open() {
    table = ctx.table(tableId);
  }

  @Override
  public void process(int side, StreamChunk chunk, Emitter out) throws InterruptedException {
    vnodes = table.vnodes(chunk, vnodes);
    for (int i = 0; i < chunk.size(); i++) {
      if (!chunk.visible(i)) {
        continue;
      }
      if (Op.isInsert(chunk.op(i))) {
        table.put(chunk, i, vnodes[i]);
      } else {
        table.delete(chunk, i, vnodes[i]);
      }
    }
    out.emit(chunk);
  }

  @Override
  public void updateVnodes(VnodeBitmap old, VnodeBitmap vnodes) {
    table.updateVnodes(vnodes);
  }

  @Override
  public void onBarrier(Barrier barrier, Emitter out) {
    table.commit(barrier.prevEpoch());
  }
}
