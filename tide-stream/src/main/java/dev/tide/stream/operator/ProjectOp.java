package dev.tide.stream.operator;

import dev.tide.common.chunk.Column;
import dev.tide.common.chunk.StreamChunk;
import dev.tide.proto.plan.Expr;
import dev.tide.stream.actor.Operator;
import dev.tide.stream.actor.Watermark;
import dev.tide.stream.expr.ChunkExpr;
import dev.tide.stream.expr.SharedExprs;
import java.util.List;

/**
 * Computes output columns from expressions; ops and visibility pass through. A chunk whose rows are
 * mostly invisible (a selective filter below) is compacted first, so that the expressions run over
 * the rows that remain only.
 */
public final class ProjectOp implements Operator {
  private final ChunkExpr[] exprs;
  /** The input column each output column copies, or -1 for a computed one. */
  private final int[] copied;

  public ProjectOp(List<Expr> exprs) {
    this(exprs, SharedExprs.none());
  }

  public ProjectOp(List<Expr> exprs, SharedExprs shared) {
    this.exprs = exprs.stream().map(e -> ChunkExpr.compile(e, shared)).toArray(ChunkExpr[]::new);
    this.copied = exprs.stream().mapToInt(e -> e.hasInputRef() ? e.getInputRef() : -1).toArray();
  }

  /** A watermark goes on to every output column that copies its column; a computed column has none. */
  @Override
  public void onWatermark(int side, Watermark watermark, Emitter out) throws InterruptedException {
    for (int i = 0; i < copied.length; i++) {
      if (copied[i] == watermark.column()) {
        out.watermark(watermark.on(i));
      }
    }
  }

  @Override
  public void process(int side, StreamChunk input, Emitter out) throws InterruptedException {
    StreamChunk chunk = input.visibility() != null && input.cardinality() * 2 < input.size() ? input.compact() : input;
    Column[] cols = new Column[exprs.length];
    for (int i = 0; i < cols.length; i++) {
      cols[i] = exprs[i].eval(chunk);
    }
    out.emit(chunk.withColumns(cols));
  }
}
