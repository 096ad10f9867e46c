package dev.tide.stream.source;

import dev.tide.common.chunk.ChunkBuilder;
import dev.tide.common.chunk.Op;
import dev.tide.common.chunk.StreamChunk;
import dev.tide.common.types.DataType;
import dev.tide.proto.plan.SourceNode;
import dev.tide.proto.stream.Dml;
import dev.tide.proto.stream.DmlRow;
import dev.tide.stream.actor.Barrier;
import dev.tide.stream.actor.SourceOperator;
import dev.tide.stream.expr.ExprResolver;
import dev.tide.stream.operator.ActorContext;
import java.util.ArrayDeque;
import java.util.List;

/**
 * The source of a table (connector {@value #CONNECTOR}, {@code CREATE TABLE}): it emits the rows
 * that INSERT and DELETE statements wrote, which meta hands to it in a barrier's Dml mutation. They
 * belong to the epoch the barrier starts; meta answers the statement once that epoch commits, and a
 * recovery before then fails it, so the source keeps no offsets: what it emitted is in the table's
 * committed state, what it did not is reported as not written. The rows are checked by the writer
 * (one row per key: a delete carries the stored row). Singleton (one split).
 *
 * <p>Thread-safety: confined to the actor thread.
 */
public final class TableSourceOp implements SourceOperator {
  public static final String CONNECTOR = "table";

  private final DataType[] types;
  private final int[] columns;
  private final ActorContext ctx;
  private final ArrayDeque<StreamChunk> pending = new ArrayDeque<>();
  private boolean ownsSplit;

  public TableSourceOp(SourceNode node, List<DataType> tableTypes, ActorContext ctx) {
    this.types = tableTypes.toArray(new DataType[0]);
    this.columns = node.getColumnsCount() == 0 ? java.util.stream.IntStream.range(0, types.length).toArray()
        : node.getColumnsList().stream().mapToInt(Integer::intValue).toArray();
    this.ctx = ctx;
  }

  /** The table's column types (the written rows' layout). */
  public static List<DataType> columnTypes(SourceNode node) {
    return List.of(dev.tide.stream.plan.Types.types(node.getTableColumnsList()));
  }

  @Override
  public StreamChunk next(long nowNanos) {
    return pending.poll();
  }

  @Override
  public long nanosUntilReady(long nowNanos) {
    return pending.isEmpty() ? Long.MAX_VALUE : 0;
  }

  @Override
  public boolean ended() {
    return false;
  }

  @Override
  public void open() {
    updateSplits(ctx.splits());
  }

  @Override
  public void updateSplits(List<Integer> splits) {
    ownsSplit = splits.contains(0);
  }

  @Override
  public void onBarrier(Barrier barrier, Emitter out) throws InterruptedException {
    while (!pending.isEmpty()) {
      out.emit(pending.poll());
    }
    if (barrier.mutation() == null || !barrier.mutation().hasDml() || barrier.mutation().getDml().getJobId() != ctx.jobId()
        || !ownsSplit) {
      return;
    }
    DataType[] outTypes = new DataType[columns.length];
    for (int i = 0; i < columns.length; i++) {
      outTypes[i] = types[columns[i]];
    }
    ChunkBuilder b = new ChunkBuilder(outTypes, StreamChunk.DEFAULT_CAPACITY);
    Dml dml = barrier.mutation().getDml();
    for (DmlRow r : dml.getRowsList()) {
      Object[] row = new Object[columns.length];
      for (int i = 0; i < columns.length; i++) {
        row[i] = ExprResolver.value(r.getValues(columns[i]));
      }
      StreamChunk full = b.appendRow(r.getDelete() ? Op.DELETE.code() : Op.INSERT.code(), row);
      if (full != null) {
        pending.add(full);
      }
    }
    StreamChunk last = b.take();
    if (last != null) {
      pending.add(last);
    }
  }
}
