package dev.tide.stream.operator;

import dev.tide.common.chunk.StreamChunk;
import dev.tide.common.hash.RowFingerprint;
import dev.tide.stream.actor.Barrier;
import dev.tide.stream.actor.Operator;
import dev.tide.stream.state.StateTable;

/**
 * A sink that keeps no rows: nets the {@link RowFingerprint} of its input changelog (projected to the
 * digest's columns) and, at each barrier that saw input, writes the actor's running total under its
 * actor id, so the total commits with the epoch that holds the rows. The job's digest is the sum
 * over the table's rows.
 *
 * <p>Exactly once: after a recovery the actor (same id) starts from its committed row, read at its
 * first barrier with input, which comes after the actor waited for the epoch before its first
 * barrier to commit; the replayed suffix was never in that row. A rescale changes nothing here: a
 * removed actor's row stays (its committed part of the total) and an added actor has a new id.
 * Emits nothing.
 */
public final class DigestOp implements Operator {
  private final int tableId;
  private final int[] columns;
  private final ActorContext ctx;
  private final RowFingerprint.Builder total = new RowFingerprint.Builder();
  private StateTable table;
  private boolean loaded;
  private boolean changed;

  public DigestOp(int tableId, int[] columns, ActorContext ctx) {
    this.tableId = tableId;
    this.columns = columns;
    this.ctx = ctx;
  }

  @Override
  public void open() {
    table = ctx.table(tableId);
  }

  @Override
  public void process(int side, StreamChunk chunk, Emitter out) {
    total.add(chunk, columns);
    changed = true;
  }

  @Override
  public void onBarrier(Barrier barrier, Emitter out) {
    if (changed) {
      if (!loaded) {
        Object[] committed = table.get(new Object[] {ctx.actorId()});
        if (committed != null) {
          total.add(new RowFingerprint((Long) committed[1], (Long) committed[2], (Long) committed[3]));
        }
        loaded = true;
      }
      RowFingerprint f = total.build();
      table.put(new Object[] {ctx.actorId(), f.rows(), f.sumA(), f.sumB()});
      changed = false;
    }
    table.commit(barrier.prevEpoch());
  }
}
