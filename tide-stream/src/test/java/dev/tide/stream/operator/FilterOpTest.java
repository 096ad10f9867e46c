package dev.tide.stream.operator;

import static dev.tide.stream.expr.Ex.col;
import static dev.tide.stream.expr.Ex.gt;
import static dev.tide.stream.expr.Ex.lit;
import static dev.tide.stream.operator.Chunks.chunk;
import static dev.tide.stream.operator.Chunks.del;
import static dev.tide.stream.operator.Chunks.ins;
import static dev.tide.stream.operator.Chunks.ud;
import static dev.tide.stream.operator.Chunks.ui;
import static dev.tide.stream.operator.Chunks.visible;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tide.common.chunk.Op;
import dev.tide.common.chunk.StreamChunk;
import dev.tide.common.types.DataType;
import dev.tide.common.types.Field;
import dev.tide.common.types.Schema;
import dev.tide.stream.expr.ExprResolver;
import dev.tide.stream.operator.Chunks.Row;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Example;

/** FilterOp keeps rows whose condition is true (not null) and splits update pairs it cuts in half. */
class FilterOpTest {
  private static final DataType[] TYPES = {DataType.BIGINT, DataType.BIGINT};
  private static final Schema SCHEMA = Schema.of(new Field("k", DataType.BIGINT), new Field("v", DataType.BIGINT));

  /** Filter {@code v > 10}. */
  private static FilterOp filter() {
    return new FilterOp(ExprResolver.resolve(gt(col("v"), lit(10L)), SCHEMA, "test"));
  }

  private static List<StreamChunk> run(FilterOp f, StreamChunk in) throws InterruptedException {
    List<StreamChunk> out = new ArrayList<>();
    f.process(0, in, out::add);
    return out;
  }

  @Example
  void anUpdateWhoseOldRowFailsBecomesAnInsert() throws InterruptedException {
    StreamChunk out = run(filter(), chunk(TYPES, ud(1L, 5L), ui(1L, 50L))).get(0);
    assertThat(visible(out)).usingRecursiveFieldByFieldElementComparator().containsExactly(ins(1L, 50L));
  }

  @Example
  void anUpdateWhoseNewRowFailsBecomesADelete() throws InterruptedException {
    StreamChunk out = run(filter(), chunk(TYPES, ud(1L, 50L), ui(1L, 5L))).get(0);
    assertThat(visible(out)).usingRecursiveFieldByFieldElementComparator().containsExactly(del(1L, 50L));
  }

  @Example
  void anUpdateThatPassesWholeStaysAPair() throws InterruptedException {
    StreamChunk in = chunk(TYPES, ud(1L, 50L), ui(1L, 60L), ins(2L, 1L));
    StreamChunk out = run(filter(), in).get(0);
    assertThat(visible(out)).usingRecursiveFieldByFieldElementComparator().containsExactly(ud(1L, 50L), ui(1L, 60L));
    assertThat(out.column(0)).as("columns are shared, not copied").isSameAs(in.column(0));
  }

  @Example
  void nullConditionDropsTheRowAndAllFailingEmitsNothing() throws InterruptedException {
    StreamChunk out = run(filter(), chunk(TYPES, ins(1L, null), ins(2L, 11L))).get(0);
    assertThat(visible(out)).usingRecursiveFieldByFieldElementComparator().containsExactly(ins(2L, 11L));
    assertThat(run(filter(), chunk(TYPES, ins(1L, 1L), ud(1L, 2L), ui(1L, 3L)))).isEmpty();
  }

  @Example
  void rowsAlreadyInvisibleStayInvisible() throws InterruptedException {
    StreamChunk in = chunk(TYPES, ud(1L, 50L), ui(1L, 60L), ins(2L, 70L)).withVisibility(new boolean[] {false, true, true});
    StreamChunk out = run(filter(), in).get(0);
    // The pair was already cut upstream: its visible half must not stay an UpdateInsert.
    assertThat(visible(out)).usingRecursiveFieldByFieldElementComparator().containsExactly(ins(1L, 60L), ins(2L, 70L));
  }

  @Property(tries = 500)
  void outputIsWellFormedAndKeepsExactlyTheMatchingRowsWithTheirSigns(@ForAll long seed) throws InterruptedException {
    Random rnd = new Random(seed);
    int n = 1 + rnd.nextInt(30);
    List<Op> ops = Chunks.randomOps(rnd, n);
    List<Row> rows = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      Long v = rnd.nextInt(8) == 0 ? null : (long) rnd.nextInt(21);
      rows.add(new Row(ops.get(i), (long) i, v));
    }
    StreamChunk in = chunk(TYPES, rows);
    List<StreamChunk> out = run(filter(), in);
    List<Row> kept = out.isEmpty() ? List.of() : visible(out.get(0));
    List<Row> expected = rows.stream().filter(r -> r.values()[1] != null && (Long) r.values()[1] > 10).toList();
    assertThat(kept).hasSameSizeAs(expected);
    for (int i = 0; i < kept.size(); i++) {
      assertThat(kept.get(i).values()).containsExactly(expected.get(i).values());
      assertThat(Op.sign(kept.get(i).op().code())).isEqualTo(Op.sign(expected.get(i).op().code()));
    }
    if (!out.isEmpty()) {
      assertThat(Chunks.wellFormed(out.get(0))).as("seed %d: %s", seed, out.get(0)).isTrue();
    }
  }
}
