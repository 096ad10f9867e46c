package dev.tide.stream.operator;

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
import dev.tide.proto.plan.Plan;
import dev.tide.proto.plan.PlanNode;
import dev.tide.stream.actor.Barrier;
import dev.tide.stream.operator.Chunks.Row;
import dev.tide.stream.plan.Agg;
import dev.tide.stream.plan.PlanBuilder;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * Two-phase aggregation: {@link LocalAggOp} combines each chunk, the final {@link HashAggOp} (partial
 * input) adds the combined rows. Its output at every barrier, and after a restart from state, equals
 * the one-phase aggregation's over the same rows, retractions included.
 */
class TwoPhaseAggTest {
  private static final Map<String, String> OPTS = Map.of("events", "10");
  private static final DataType[] THREE_LONGS = {DataType.BIGINT, DataType.BIGINT, DataType.BIGINT};

  /** counts by (auction, bidder), then by bidder: sum, count(*), count and avg of the counts (a retracting input). */
  private static Plan retractingPlan() {
    PlanBuilder b = new PlanBuilder("t");
    b.source("nexmark", "bid", OPTS).groupBy("auction", "bidder").agg(Agg.count("n"))
        .groupBy("bidder").agg(Agg.sum("n", "s"), Agg.count("rows"), Agg.count("n", "nn"), Agg.avg("n", "mean")).materialize("t");
    return b.build();
  }

  /** Over bids (append-only): max, min and count of the price by auction. */
  private static Plan appendOnlyPlan() {
    PlanBuilder b = new PlanBuilder("t");
    b.source("nexmark", "bid", OPTS).project("auction", "price", "_row_id")
        .groupBy("auction").agg(Agg.max("price", "hi"), Agg.min("price", "lo"), Agg.count("rows")).materialize("t");
    return b.build();
  }

  /** The last split (partial-input) aggregation of a compiled plan. */
  private static PlanNode finalPhase(Harness h) {
    return h.job.getFragmentsList().stream().flatMap(f -> f.getNodesList().stream())
        .filter(n -> n.hasHashAgg() && n.getHashAgg().getPartialInput()).reduce((a, b) -> a.getId() > b.getId() ? a : b).orElseThrow();
  }

  /** The local phase of {@link #finalPhase}: the one with its group-key count and calls. */
  private static PlanNode localPhase(Harness h) {
    var f = finalPhase(h).getHashAgg();
    return h.job.getFragmentsList().stream().flatMap(x -> x.getNodesList().stream())
        .filter(n -> n.hasLocalAgg() && n.getLocalAgg().getGroupKeysCount() == f.getGroupKeysCount()
            && n.getLocalAgg().getCallsList().stream().map(c -> c.getKind()).toList().equals(f.getCallsList().stream().map(c -> c.getKind()).toList()))
        .findFirst().orElseThrow();
  }

  /** One-phase and two-phase operators over separate stores, fed the same chunks. */
  private static final class Pair {
    final Harness oneStore;
    final Harness twoStore;
    final PlanNode finalNode;
    final HashAggOp one;
    final LocalAggOp local;
    HashAggOp two;
    int partialRows; // of the last epoch

    Pair(Plan plan) {
      oneStore = new Harness(plan);
      twoStore = new Harness(plan);
      PlanNode split = finalPhase(oneStore);
      one = new HashAggOp(oneStore.onePhase(split).getHashAgg(), oneStore.planInputTypes(split, 0), oneStore.context(split));
      one.open();
      finalNode = finalPhase(twoStore);
      PlanNode l = localPhase(twoStore);
      local = new LocalAggOp(l.getLocalAgg(), twoStore.planInputTypes(split, 0));
      restartFinal();
    }

    /** A fresh final phase that knows only the state store (as after recovery). */
    void restartFinal() {
      two = new HashAggOp(finalNode.getHashAgg(), twoStore.inputTypes(finalNode, 0), twoStore.context(finalNode));
      two.open();
    }

    /** Feeds the chunks of one epoch to both and checks their outputs at the barrier agree; returns them. */
    List<String> epoch(List<StreamChunk> chunks) throws InterruptedException {
      List<StreamChunk> outOne = new ArrayList<>();
      List<StreamChunk> partials = new ArrayList<>();
      List<StreamChunk> outTwo = new ArrayList<>();
      for (StreamChunk c : chunks) {
        one.process(0, c, outOne::add);
        local.process(0, c, partials::add);
      }
      partialRows = 0;
      for (StreamChunk p : partials) {
        assertThat(visible(p)).allMatch(r -> r.op() == Op.INSERT);
        partialRows += p.cardinality();
        two.process(0, p, outTwo::add);
      }
      one.onBarrier(oneStore.barrier(), outOne::add);
      Barrier barrier = twoStore.barrier();
      List<StreamChunk> atBarrier = new ArrayList<>();
      local.onBarrier(barrier, atBarrier::add);
      assertThat(atBarrier).as("the local phase holds nothing across a barrier").isEmpty();
      two.onBarrier(barrier, outTwo::add);
      assertThat(outOne).allMatch(Chunks::wellFormed);
      assertThat(outTwo).allMatch(Chunks::wellFormed);
      List<String> a = texts(outOne);
      assertThat(texts(outTwo)).containsExactlyInAnyOrderElementsOf(a);
      return a;
    }
  }

  private static List<String> texts(List<StreamChunk> chunks) {
    return chunks.stream().flatMap(c -> visible(c).stream()).map(r -> r.op() + " " + Arrays.toString(r.values())).toList();
  }

  @Test
  void localPhaseEmitsOneRowOfSignedPartialStatesPerGroupOfTheChunk() throws InterruptedException {
    Harness h = new Harness(retractingPlan());
    PlanNode l = localPhase(h);
    LocalAggOp local = new LocalAggOp(l.getLocalAgg(), h.planInputTypes(finalPhase(h), 0));
    List<StreamChunk> out = new ArrayList<>();
    // Rows (auction, bidder, n); grouped by bidder.
    local.process(0, chunk(THREE_LONGS, ins(1L, 7L, 3L), ins(2L, 8L, 5L), ud(1L, 7L, 3L), ui(1L, 7L, 4L), ins(3L, 7L, null),
        ins(4L, 9L, 2L), del(4L, 9L, 2L), del(5L, null, 6L)), out::add);
    // Columns: bidder, _row_count, sum(n) sum and count, count(*), count(n), avg(n) sum and count.
    assertThat(out.stream().flatMap(c -> visible(c).stream()).map(r -> Arrays.asList(r.values())).toList()).containsExactly(
        Arrays.asList(7L, 2L, 4L, 1L, 2L, 1L, 4L, 1L),
        Arrays.asList(8L, 1L, 5L, 1L, 1L, 1L, 5L, 1L),
        // bidder 9 was inserted and deleted: all deltas zero, no row.
        Arrays.asList(null, -1L, -6L, -1L, -1L, -1L, -6L, -1L));
  }

  @Test
  void localPhaseGroupsNegativeAndPositiveZeroAndStringKeysByValue() throws InterruptedException {
    PlanBuilder b = new PlanBuilder("z");
    b.source("nexmark", "person", OPTS).project(List.of(new PlanBuilder.Named(dev.tide.stream.expr.Ex.col("name"), "name"),
            new PlanBuilder.Named(dev.tide.stream.expr.Ex.cast(dev.tide.stream.expr.Ex.col("id"), DataType.DOUBLE), "d"),
            new PlanBuilder.Named(dev.tide.stream.expr.Ex.col("id"), "id")))
        .groupBy("name", "d").agg(Agg.count("n")).materialize("z");
    Harness h = new Harness(b.build());
    LocalAggOp local = new LocalAggOp(localPhase(h).getLocalAgg(), h.planInputTypes(finalPhase(h), 0));
    List<StreamChunk> out = new ArrayList<>();
    DataType[] in = {DataType.VARCHAR, DataType.DOUBLE, DataType.BIGINT};
    local.process(0, chunk(in, ins("a", -0.0, 1L), ins("a", 0.0, 2L), ins("b", 0.0, 3L), ins("a", 0.0, 4L)), out::add);
    List<Row> rows = out.stream().flatMap(c -> visible(c).stream()).toList();
    assertThat(rows).hasSize(2);
    assertThat(rows.get(0).values()[0]).isEqualTo("a");
    assertThat(rows.get(0).values()[2]).isEqualTo(3L);
    assertThat(rows.get(1).values()[0]).isEqualTo("b");
  }

  /**
   * Keys of an integer and a string (found by a per-chunk id: runs of equal strings, strings taking
   * turns, nulls, rows hidden by visibility), with extremes compared unboxed: equal to one phase.
   */
  @Test
  void twoPhasesEqualOnePhaseOverIntegerAndStringKeys() throws InterruptedException {
    PlanBuilder b = new PlanBuilder("t");
    b.source("nexmark", "bid", OPTS).project("auction", "channel", "price", "_row_id").groupBy("auction", "channel")
        .agg(Agg.max("price", "hi"), Agg.min("price", "lo"), Agg.count("rows"), Agg.sum("price", "total")).materialize("t");
    DataType[] in = {DataType.BIGINT, DataType.VARCHAR, DataType.BIGINT, DataType.BIGINT};
    String[] channels = {"Google", "Apple", "Baidu", null, "Google"};
    Random rnd = new Random(7);
    Pair p = new Pair(b.build());
    long rowId = 0;
    for (int epoch = 0; epoch < 12; epoch++) {
      List<StreamChunk> chunks = new ArrayList<>();
      for (int c = 0; c < 1 + rnd.nextInt(3); c++) {
        List<Row> rows = new ArrayList<>();
        int run = rnd.nextInt(channels.length);
        for (int i = 0; i < 1 + rnd.nextInt(40); i++) {
          if (rnd.nextInt(4) == 0) {
            run = rnd.nextInt(channels.length);
          }
          rows.add(ins((long) rnd.nextInt(3), channels[run], (long) rnd.nextInt(1000), rowId++));
        }
        StreamChunk chunk = chunk(in, rows);
        boolean[] vis = new boolean[chunk.size()];
        for (int i = 0; i < vis.length; i++) {
          vis[i] = rnd.nextInt(5) > 0;
        }
        chunks.add(chunk.withVisibility(vis));
      }
      p.epoch(chunks);
    }
  }

  @Test
  void twoPhasesEqualOnePhaseOverRandomRetractionsAndAcrossARestart() throws InterruptedException {
    for (long seed = 1; seed <= 20; seed++) {
      Random rnd = new Random(seed);
      Pair p = new Pair(retractingPlan());
      List<Object[]> live = new ArrayList<>();
      for (int epoch = 0; epoch < 8; epoch++) {
        List<StreamChunk> chunks = new ArrayList<>();
        for (int c = 0; c < 1 + rnd.nextInt(3); c++) {
          chunks.add(chunk(THREE_LONGS, randomChanges(rnd, live, 1 + rnd.nextInt(40))));
        }
        p.epoch(chunks);
        if (rnd.nextInt(3) == 0) {
          p.restartFinal();
        }
      }
    }
  }

  @Test
  void twoPhaseMinMaxOverAnAppendOnlyInputEqualsOnePhaseAndSurvivesARestart() throws InterruptedException {
    Random rnd = new Random(42);
    Pair p = new Pair(appendOnlyPlan());
    long rowId = 0;
    for (int epoch = 0; epoch < 10; epoch++) {
      List<StreamChunk> chunks = new ArrayList<>();
      for (int c = 0; c < 1 + rnd.nextInt(3); c++) {
        List<Row> rows = new ArrayList<>();
        for (int i = 0; i < 1 + rnd.nextInt(30); i++) {
          rows.add(ins((long) rnd.nextInt(5), (long) rnd.nextInt(1000), rowId++));
        }
        chunks.add(chunk(THREE_LONGS, rows));
      }
      assertThat(p.epoch(chunks)).isNotEmpty();
      if (epoch % 4 == 3) {
        p.restartFinal();
      }
    }
  }

  @Test
  void chunksThatHardlyCombinePassThroughRowByRowUntilTheNextMeasurement() throws InterruptedException {
    Random rnd = new Random(3);
    Pair p = new Pair(retractingPlan());
    List<Object[]> live = new ArrayList<>();
    long bidder = 100;
    // Distinct bidders in every row: nothing combines, so the local phase stops hashing.
    for (int c = 0; c < LocalAggOp.PROBE_CHUNKS; c++) {
      List<Row> rows = new ArrayList<>();
      for (int i = 0; i < 20; i++) {
        Object[] r = {1L, bidder++, 1L};
        live.add(r);
        rows.add(ins(r));
      }
      p.epoch(List.of(chunk(THREE_LONGS, rows)));
      assertThat(p.partialRows).isEqualTo(20);
    }
    // Now rows of few bidders, retractions included, pass through one partial row per input row.
    List<Row> changes = randomChanges(rnd, live, 30);
    p.epoch(List.of(chunk(THREE_LONGS, changes)));
    assertThat(p.partialRows).isEqualTo(changes.size());
    for (int c = 0; c < LocalAggOp.BYPASS_CHUNKS + LocalAggOp.PROBE_CHUNKS; c++) {
      p.epoch(List.of(chunk(THREE_LONGS, randomChanges(rnd, live, 30))));
    }
    // Measured again: these chunks combine.
    List<Row> more = new ArrayList<>();
    for (int i = 0; i < 10; i++) {
      Object[] r = {2L, 7L, (long) i};
      live.add(r);
      more.add(ins(r));
    }
    p.epoch(List.of(chunk(THREE_LONGS, more)));
    assertThat(p.partialRows).isEqualTo(1);
  }

  /**
   * A valid changelog of rows (auction, bidder, n) over the rows in {@code live}: inserts (some with a
   * null bidder or n), deletes and update pairs of live rows.
   */
  private static List<Row> randomChanges(Random rnd, List<Object[]> live, int n) {
    List<Row> rows = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      int kind = live.isEmpty() ? 0 : rnd.nextInt(3);
      if (kind == 0) {
        Object[] r = {(long) rnd.nextInt(4), rnd.nextInt(8) == 0 ? null : (Object) (long) rnd.nextInt(4),
            rnd.nextInt(8) == 0 ? null : (Object) (long) rnd.nextInt(10)};
        live.add(r);
        rows.add(ins(r));
      } else {
        Object[] old = live.remove(rnd.nextInt(live.size()));
        if (kind == 1) {
          rows.add(del(old));
        } else {
          Object[] now = {old[0], old[1], (long) rnd.nextInt(10)};
          live.add(now);
          rows.add(ud(old));
          rows.add(ui(now));
        }
      }
    }
    return rows;
  }
}
