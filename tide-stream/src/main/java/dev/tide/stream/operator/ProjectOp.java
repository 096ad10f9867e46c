package dev.tide.stream.operator;

import dev.tide.common.chunk.Column;
import dev.tide.common.chunk.StreamChunk;
import dev.tide.proto.plan.Expr;
import dev.tide.stream.actor.Operator;
import dev.tide.stream.expr.ChunkExpr;
import java.util.List;

/** Computes output columns from expressions; ops and visibility pass through. */
public final class ProjectOp implements Operator {
  private final ChunkExpr[] exprs;

  public ProjectOp(List<Expr> exprs) {
    this.exprs = exprs.stream().map(ChunkExpr::compile).toArray(ChunkExpr[]::new);
  }

  @Override
  public void process(int side, StreamChunk chunk, Emitter out) throws InterruptedException {
    Column[] cols = new Column[exprs.length];
    for (int i = 0; i < cols.length; i++) {
      cols[i] = exprs[i].eval(chunk);
    }
    out.emit(chunk.withColumns(cols));
  }
}
