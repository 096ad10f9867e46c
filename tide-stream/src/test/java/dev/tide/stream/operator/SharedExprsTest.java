package dev.tide.stream.operator;

import static dev.tide.stream.expr.Ex.add;
import static dev.tide.stream.expr.Ex.and;
import static dev.tide.stream.expr.Ex.col;
import static dev.tide.stream.expr.Ex.gt;
import static dev.tide.stream.expr.Ex.lit;
import static dev.tide.stream.expr.Ex.lt;
import static dev.tide.stream.expr.Ex.mul;
import static dev.tide.stream.operator.Chunks.chunk;
import static dev.tide.stream.operator.Chunks.ins;
import static dev.tide.stream.operator.Chunks.visible;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tide.common.chunk.Column;
import dev.tide.common.chunk.Op;
import dev.tide.common.chunk.StreamChunk;
import dev.tide.common.types.DataType;
import dev.tide.common.types.Field;
import dev.tide.common.types.Schema;
import dev.tide.proto.plan.Expr;
import dev.tide.stream.expr.ChunkExpr;
import dev.tide.stream.expr.Ex;
import dev.tide.stream.expr.ExprResolver;
import dev.tide.stream.expr.SharedExprs;
import dev.tide.stream.operator.Chunks.Row;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;

/** A call repeated across a filter and the projection above it is evaluated once, with the same results. */
class SharedExprsTest {
  private static final DataType[] TYPES = {DataType.BIGINT, DataType.BIGINT};
  private static final Schema SCHEMA = Schema.of(new Field("k", DataType.BIGINT), new Field("v", DataType.BIGINT));
  private static final Ex TRIPLE = mul(col("v"), lit(3L));
  /** {@code WHERE v * 3 > 30 AND v * 3 < 90}. */
  private static final Expr CONDITION = resolve(and(gt(TRIPLE, lit(30L)), lt(TRIPLE, lit(90L))));
  /** {@code SELECT k, v * 3, v * 3 + k}. */
  private static final List<Expr> PROJECTION = List.of(resolve(col("k")), resolve(TRIPLE), resolve(add(TRIPLE, col("k"))));

  private static Expr resolve(Ex e) {
    return ExprResolver.resolve(e, SCHEMA, "test");
  }

  private static SharedExprs shared() {
    List<Expr> all = new ArrayList<>(PROJECTION);
    all.add(CONDITION);
    return SharedExprs.of(all);
  }

  @Example
  void aRepeatedCallIsOneNodeThatReturnsItsResultAgainForTheSameColumns() {
    SharedExprs shared = shared();
    ChunkExpr a = ChunkExpr.compile(resolve(TRIPLE), shared);
    assertThat(ChunkExpr.compile(resolve(TRIPLE), shared)).isSameAs(a);
    assertThat(ChunkExpr.compile(resolve(TRIPLE), SharedExprs.none())).isNotSameAs(a);

    StreamChunk in = chunk(TYPES, ins(1L, 10L), ins(2L, 20L));
    Column first = a.eval(in);
    assertThat(a.eval(in.withVisibility(new boolean[] {true, false}))).as("a filter's output shares its columns").isSameAs(first);

    StreamChunk other = chunk(TYPES, ins(1L, 7L));
    assertThat(a.eval(other).get(0)).as("other columns: computed again").isEqualTo(21L);
    assertThat(first.get(1)).isEqualTo(60L);
  }

  @Example
  void aCallWithoutColumnsOrSeenOnceIsNotShared() {
    SharedExprs shared = SharedExprs.of(List.of(resolve(add(lit(1L), lit(2L))), resolve(add(lit(1L), lit(2L))), resolve(TRIPLE)));
    assertThat(ChunkExpr.compile(resolve(TRIPLE), shared)).isNotSameAs(ChunkExpr.compile(resolve(TRIPLE), shared));
    assertThat(ChunkExpr.compile(resolve(add(lit(1L), lit(2L))), shared))
        .isNotSameAs(ChunkExpr.compile(resolve(add(lit(1L), lit(2L))), shared));
  }

  /** Filter then project, shared or not, over random chunks (sparse ones are compacted by the projection). */
  @Property(tries = 300)
  void sharingChangesNoResult(@ForAll long seed) throws InterruptedException {
    Random rnd = new Random(seed);
    int n = 1 + rnd.nextInt(40);
    List<Op> ops = Chunks.randomOps(rnd, n);
    List<Row> rows = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      Long v = rnd.nextInt(8) == 0 ? null : (long) rnd.nextInt(40);
      rows.add(new Row(ops.get(i), (long) i, v));
    }
    StreamChunk in = chunk(TYPES, rows);
    SharedExprs shared = shared();
    assertThat(run(new FilterOp(CONDITION, shared), new ProjectOp(PROJECTION, shared), in))
        .as("seed %d", seed).isEqualTo(run(new FilterOp(CONDITION), new ProjectOp(PROJECTION), in));
  }

  private static List<String> run(FilterOp filter, ProjectOp project, StreamChunk in) throws InterruptedException {
    List<StreamChunk> filtered = new ArrayList<>();
    filter.process(0, in, filtered::add);
    List<String> out = new ArrayList<>();
    for (StreamChunk c : filtered) {
      List<StreamChunk> projected = new ArrayList<>();
      project.process(0, c, projected::add);
      for (StreamChunk p : projected) {
        assertThat(Chunks.wellFormed(p)).isTrue();
        for (Row r : visible(p)) {
          out.add(r.op() + java.util.Arrays.toString(r.values()));
        }
      }
    }
    return out;
  }
}
