package dev.tide.stream.operator;

import static dev.tide.stream.operator.Chunks.chunk;
import static dev.tide.stream.operator.Chunks.del;
import static dev.tide.stream.operator.Chunks.ins;
import static dev.tide.stream.operator.Chunks.texts;
import static dev.tide.stream.operator.Chunks.ud;
import static dev.tide.stream.operator.Chunks.ui;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tide.common.chunk.StreamChunk;
import dev.tide.common.types.DataType;
import dev.tide.proto.plan.PlanNode;
import dev.tide.stream.operator.Chunks.Row;
import dev.tide.stream.plan.Agg;
import dev.tide.stream.plan.PlanBuilder;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import org.junit.jupiter.api.Test;

/**
 * ROW_NUMBER top-2 per group, by value descending, ties by the stream key: rows that enter push the
 * last one out, rows whose number changes are updated, and over a retracting input a row that
 * leaves lets the next one in. Rows are (group, key, value), then the row number.
 */
class TopNOpTest {
  private static final DataType[] IN = {DataType.BIGINT, DataType.BIGINT, DataType.BIGINT};

  /** Append-only: bids (auction, _row_id, price). Retracting: per (auction, _row_id) the max price. */
  private static Harness harness(boolean retracting) {
    PlanBuilder b = new PlanBuilder("t");
    PlanBuilder.Stream in = b.source("nexmark", "bid", Map.of("events", "10")).project("auction", "_row_id", "price");
    if (retracting) {
      in = in.groupBy("auction", "_row_id").agg(Agg.max("price", "price"));
    }
    in.groupBy("auction").topN(List.of("price"), List.of(true), 2, "rn").materialize("t");
    return new Harness(b.build());
  }

  private static TopNOp open(Harness h) {
    PlanNode n = h.node(PlanNode.KindCase.TOP_N);
    TopNOp op = new TopNOp(n.getTopN(), h.inputTypes(n, 0), h.context(n));
    op.open();
    return op;
  }

  /** What the operator emits for {@code in} up to and at the next barrier (nothing before it). */
  private static List<String> run(Harness h, TopNOp op, Row... in) throws InterruptedException {
    List<StreamChunk> out = new ArrayList<>();
    op.process(0, chunk(IN, in), out::add);
    assertThat(out).as("nothing is emitted before the barrier").isEmpty();
    op.onBarrier(h.barrier(), out::add);
    return texts(out);
  }

  @Test
  void appendOnlyRowsPushTheLastOneOutAndShiftNumbers() throws InterruptedException {
    Harness h = harness(false);
    TopNOp op = open(h);
    assertThat(run(h, op, ins(1L, 10L, 5L), ins(2L, 11L, 7L))).isEqualTo(texts(ins(1L, 10L, 5L, 1L), ins(2L, 11L, 7L, 1L)));
    assertThat(run(h, op, ins(1L, 12L, 9L))).isEqualTo(texts(ins(1L, 12L, 9L, 1L), ud(1L, 10L, 5L, 1L), ui(1L, 10L, 5L, 2L)));
    // Equal to the second: the greater key ranks after it, out of the top 2; a better one pushes row 10 out.
    assertThat(run(h, op, ins(1L, 13L, 5L))).isEqualTo(texts());
    assertThat(run(h, op, ins(1L, 9L, 5L))).isEqualTo(texts(del(1L, 10L, 5L, 2L), ins(1L, 9L, 5L, 2L)));
    assertThat(run(h, op, ins(1L, 14L, 1L), ins(1L, 15L, 8L))).isEqualTo(texts(del(1L, 9L, 5L, 2L), ins(1L, 15L, 8L, 2L)));
  }

  @Test
  void overARetractingInputTheNextRowEntersWhenOneLeaves() throws InterruptedException {
    Harness h = harness(true);
    TopNOp op = open(h);
    run(h, op, ins(1L, 10L, 5L), ins(1L, 11L, 7L), ins(1L, 12L, 3L));
    TopNOp fresh = open(h); // rebuilt from committed state
    assertThat(run(h, fresh, del(1L, 11L, 7L))).isEqualTo(texts(del(1L, 11L, 7L, 1L), ud(1L, 10L, 5L, 2L), ui(1L, 10L, 5L, 1L),
        ins(1L, 12L, 3L, 2L)));
    // An update of a value in place: same row and number, new value.
    assertThat(run(h, fresh, ud(1L, 12L, 3L), ui(1L, 12L, 4L))).isEqualTo(texts(ud(1L, 12L, 3L, 2L), ui(1L, 12L, 4L, 2L)));
    assertThat(run(h, fresh, del(1L, 10L, 5L), del(1L, 12L, 4L))).isEqualTo(texts(del(1L, 10L, 5L, 1L), del(1L, 12L, 4L, 2L)));
  }

  /**
   * Random bids into a few groups with barriers between chunks and a cache of at most 3 rows (groups
   * are evicted and reloaded from state): the output, netted, is each group's top 2 of its current rows.
   */
  @Property(tries = 200)
  void nettedOutputIsTheTopTwoOfEachGroupWhateverTheCacheKeeps(@ForAll long seed, @ForAll boolean retracting)
      throws InterruptedException {
    Random rnd = new Random(seed);
    Harness h = harness(retracting);
    PlanNode n = h.node(PlanNode.KindCase.TOP_N);
    TopNOp op = new TopNOp(n.getTopN(), h.inputTypes(n, 0), h.context(n), 3);
    op.open();
    Map<Long, long[]> live = new TreeMap<>(); // row id -> (group, price)
    Map<List<Object>, Integer> out = new HashMap<>(); // netted output rows
    long nextId = 1;
    for (int step = 0; step < 30; step++) {
      List<Row> rows = new ArrayList<>();
      for (int r = 1 + rnd.nextInt(6); r > 0; r--) {
        if (retracting && !live.isEmpty() && rnd.nextInt(3) == 0) {
          Long id = new ArrayList<>(live.keySet()).get(rnd.nextInt(live.size()));
          long[] v = live.remove(id);
          rows.add(del(v[0], id, v[1]));
        } else {
          long id = nextId++;
          long[] v = {rnd.nextInt(4), rnd.nextInt(10)};
          live.put(id, v);
          rows.add(ins(v[0], id, v[1]));
        }
      }
      List<StreamChunk> chunks = new ArrayList<>();
      op.process(0, chunk(IN, rows), chunks::add);
      if (rnd.nextBoolean() || step == 29) { // the output of the epoch comes at its barrier
        op.onBarrier(h.barrier(), chunks::add);
      }
      for (StreamChunk c : chunks) {
        for (Row r : Chunks.visible(c)) {
          out.merge(Arrays.asList(r.values()), dev.tide.common.chunk.Op.sign(r.op().code()), Integer::sum);
        }
      }
      out.values().removeIf(x -> x == 0);
    }
    Map<List<Object>, Integer> expected = new HashMap<>();
    Map<Long, List<long[]>> byGroup = new TreeMap<>();
    live.forEach((id, v) -> byGroup.computeIfAbsent(v[0], g -> new ArrayList<>()).add(new long[] {id, v[1]}));
    byGroup.forEach((g, list) -> {
      list.sort((a, b) -> a[1] != b[1] ? Long.compare(b[1], a[1]) : Long.compare(a[0], b[0]));
      for (int k = 0; k < Math.min(2, list.size()); k++) {
        expected.put(Arrays.asList((Object) g, list.get(k)[0], list.get(k)[1], (long) k + 1), 1);
      }
    });
    assertThat(out).as("seed %d", seed).isEqualTo(expected);
  }
}
