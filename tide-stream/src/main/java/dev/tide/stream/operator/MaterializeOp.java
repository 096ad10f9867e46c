package dev.tide.stream.operator;

import dev.tide.common.chunk.Op;
import dev.tide.common.chunk.StreamChunk;
import dev.tide.common.hash.VnodeBitmap;
import dev.tide.stream.actor.Barrier;
import dev.tide.stream.actor.Operator;
import dev.tide.stream.state.Changelog;
import dev.tide.stream.state.StateTable;

/**
 * Applies a changelog to the view's table (upsert by primary key, delete by key; an update that keeps
 * its key is one write) and passes it on.
 * With a changelog table, also records each change there ({@link Changelog}), for views of other
 * jobs that follow this one.
 */
public final class MaterializeOp implements Operator {
  private final int tableId;
  private final int changelogTableId;
  private final ActorContext ctx;
  private StateTable table;
  private Changelog changelog;
  private int[] vnodes;

  public MaterializeOp(int tableId, ActorContext ctx) {
    this(tableId, 0, ctx);
  }

  /** @param changelogTableId the changelog's table, or 0 for none */
  public MaterializeOp(int tableId, int changelogTableId, ActorContext ctx) {
    this.tableId = tableId;
    this.changelogTableId = changelogTableId;
    this.ctx = ctx;
  }

  @Override
  public void open() {
    table = ctx.table(tableId);
    if (changelogTableId != 0) {
      int viewVnodes = ctx.tables().get(tableId).getDistKeyCount() == 0 ? 1 : ctx.vnodeCount();
      changelog = new Changelog(changelogTableId, ctx.store(), viewVnodes, ctx.vnodes());
    }
  }

  @Override
  public void process(int side, StreamChunk chunk, Emitter out) throws InterruptedException {
    vnodes = table.vnodes(chunk, vnodes);
    boolean keyKept = false; // row i is the new row of an update that keeps its key
    for (int i = 0; i < chunk.size(); i++) {
      if (!chunk.visible(i)) {
        continue;
      }
      if (keyKept) {
        table.putExisting(chunk, i, vnodes[i]);
        keyKept = false;
      } else if (Op.isInsert(chunk.op(i))) {
        table.put(chunk, i, vnodes[i]);
      } else if (chunk.op(i) == Op.UPDATE_DELETE.code() && i + 1 < chunk.size() && chunk.visible(i + 1)
          && chunk.op(i + 1) == Op.UPDATE_INSERT.code() && table.samePk(chunk, i, i + 1)) {
        keyKept = true; // the new row overwrites the old under the same key: no delete to write first
      } else {
        table.delete(chunk, i, vnodes[i]);
      }
      if (changelog != null) {
        changelog.append(chunk, i, vnodes[i]);
      }
    }
    out.emit(chunk);
  }

  @Override
  public void updateVnodes(VnodeBitmap old, VnodeBitmap vnodes) {
    table.updateVnodes(vnodes);
    if (changelog != null) {
      changelog.updateVnodes(vnodes);
    }
  }

  @Override
  public void onBarrier(Barrier barrier, Emitter out) {
    table.commit(barrier.prevEpoch());
    if (changelog != null) {
      changelog.onBarrier(barrier.prevEpoch(), barrier.currEpoch());
    }
  }
}
