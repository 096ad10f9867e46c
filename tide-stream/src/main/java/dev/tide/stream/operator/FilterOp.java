package dev.tide.stream.operator;

import dev.tide.common.chunk.BoolColumn;
import dev.tide.common.chunk.Op;
import dev.tide.common.chunk.StreamChunk;
import dev.tide.proto.plan.Expr;
import dev.tide.stream.actor.Operator;
import dev.tide.stream.actor.Watermark;
import dev.tide.stream.expr.ChunkExpr;
import dev.tide.stream.expr.SharedExprs;
import java.util.Arrays;

/** Keeps rows whose condition is true; an update pair cut in half becomes a delete or an insert. */
public final class FilterOp implements Operator {
  private final ChunkExpr condition;

  public FilterOp(Expr condition) {
    this(condition, SharedExprs.none());
  }

  public FilterOp(Expr condition, SharedExprs shared) {
    this.condition = ChunkExpr.compile(condition, shared);
  }

  @Override
  public void process(int side, StreamChunk chunk, Emitter out) throws InterruptedException {
    BoolColumn c = (BoolColumn) condition.eval(chunk);
    int n = chunk.size();
    boolean[] vis = new boolean[n];
    int kept = 0;
    for (int i = 0; i < n; i++) {
      vis[i] = chunk.visible(i) && c.isTrue(i);
      if (vis[i]) {
        kept++;
      }
    }
    if (kept == 0) {
      return;
    }
    byte[] ops = chunk.ops();
    byte[] newOps = null;
    for (int i = 0; i < n; i++) {
      if (!vis[i]) {
        continue;
      }
      boolean half = (ops[i] == Op.UPDATE_DELETE.code() && (i + 1 >= n || !vis[i + 1]))
          || (ops[i] == Op.UPDATE_INSERT.code() && (i == 0 || !vis[i - 1]));
      if (half) {
        if (newOps == null) {
          newOps = Arrays.copyOf(ops, n);
        }
        newOps[i] = Op.normalize(ops[i]);
      }
    }
    StreamChunk result = kept == n ? chunk.withVisibility(null) : chunk.withVisibility(vis);
    out.emit(newOps == null ? result : result.withOps(newOps));
  }

  @Override
  public void onWatermark(int side, Watermark watermark, Emitter out) throws InterruptedException {
    out.watermark(watermark);
  }
}
