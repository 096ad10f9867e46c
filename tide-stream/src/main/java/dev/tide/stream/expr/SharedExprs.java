package dev.tide.stream.expr;

import dev.tide.common.chunk.Column;
import dev.tide.common.chunk.StreamChunk;
import dev.tide.proto.plan.Expr;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Function;

/**
 * The calls that occur more than once among the expressions of one actor's filters and projections
 * ({@code 0.908 * price} in a {@code WHERE} and its {@code SELECT}, {@code LOWER(channel)} in four
 * {@code CASE} branches), each compiled once and evaluated once per input: a shared call keeps its
 * last result while the columns it reads are the same objects. That is sound because columns are
 * immutable, every function is deterministic, and a filter passes its input's columns on unchanged.
 *
 * <p>Not thread-safe: one instance per actor, whose operators run on one thread.
 */
public final class SharedExprs {
  private final Set<Expr> repeated;
  private final Map<Expr, ChunkExpr> compiled = new HashMap<>();

  private SharedExprs(Set<Expr> repeated) {
    this.repeated = repeated;
  }

  /** Nothing shared. */
  public static SharedExprs none() {
    return new SharedExprs(Set.of());
  }

  /**
   * The calls reading at least one column that occur twice or more in {@code roots}; an occurrence
   * inside a repeated call counts once, since that call is evaluated once.
   */
  public static SharedExprs of(List<Expr> roots) {
    Set<Expr> seen = new HashSet<>();
    Set<Expr> repeated = new HashSet<>();
    for (Expr root : roots) {
      count(root, seen, repeated);
    }
    return new SharedExprs(repeated);
  }

  private static void count(Expr e, Set<Expr> seen, Set<Expr> repeated) {
    if (!e.hasCall() || inputRefs(e).length == 0) {
      return;
    }
    if (!seen.add(e)) {
      repeated.add(e);
      return;
    }
    for (Expr arg : e.getCall().getArgsList()) {
      count(arg, seen, repeated);
    }
  }

  boolean isShared(Expr e) {
    return repeated.contains(e);
  }

  /** The one compiled node of a repeated call, compiling it on first use. */
  ChunkExpr shared(Expr e, Function<Expr, ChunkExpr> compiler) {
    ChunkExpr c = compiled.get(e);
    if (c == null) {
      c = new Shared(compiler.apply(e), inputRefs(e));
      compiled.put(e, c);
    }
    return c;
  }

  private static int[] inputRefs(Expr e) {
    Set<Integer> refs = new TreeSet<>();
    collect(e, refs);
    return refs.stream().mapToInt(Integer::intValue).toArray();
  }

  private static void collect(Expr e, Set<Integer> refs) {
    if (e.hasInputRef()) {
      refs.add(e.getInputRef());
    } else if (e.hasCall()) {
      for (Expr arg : e.getCall().getArgsList()) {
        collect(arg, refs);
      }
    }
  }

  /** A call that returns its last result while its input columns are the ones it was computed from. */
  private static final class Shared extends ChunkExpr {
    private final ChunkExpr call;
    private final int[] refs;
    private final Column[] lastInputs;
    private Column last;

    Shared(ChunkExpr call, int[] refs) {
      super(call.type());
      this.call = call;
      this.refs = refs;
      this.lastInputs = new Column[refs.length];
    }

    @Override
    public Column eval(StreamChunk c) {
      if (last != null && sameInputs(c)) {
        return last;
      }
      last = call.eval(c);
      for (int i = 0; i < refs.length; i++) {
        lastInputs[i] = c.column(refs[i]);
      }
      return last;
    }

    private boolean sameInputs(StreamChunk c) {
      for (int i = 0; i < refs.length; i++) {
        if (c.column(refs[i]) != lastInputs[i]) {
          return false;
        }
      }
      return true;
    }
  }
}
