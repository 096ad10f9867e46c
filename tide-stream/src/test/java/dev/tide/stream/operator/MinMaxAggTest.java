package dev.tide.stream.operator;

import static dev.tide.stream.operator.Chunks.chunk;
import static dev.tide.stream.operator.Chunks.del;
import static dev.tide.stream.operator.Chunks.ins;
import static dev.tide.stream.operator.Chunks.ud;
import static dev.tide.stream.operator.Chunks.ui;
import static dev.tide.stream.operator.Chunks.visible;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tide.common.chunk.StreamChunk;
import dev.tide.common.types.DataType;
import dev.tide.proto.plan.PlanNode;
import dev.tide.stream.operator.Chunks.Row;
import dev.tide.stream.plan.Agg;
import dev.tide.stream.plan.PlanBuilder;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * MIN/MAX of a hash aggregation: over an append-only input the group's state row alone holds the
 * extreme (no multiset table, and it survives a restart from state); over a retracting input the
 * multiset finds the next extreme when the current one is retracted.
 */
class MinMaxAggTest {
  private static final Map<String, String> OPTS = Map.of("events", "10");
  private static final DataType[] THREE_LONGS = {DataType.BIGINT, DataType.BIGINT, DataType.BIGINT};

  /** The rows the aggregation emits for {@code in} and the next barrier, as "OP [values]". */
  private static List<String> run(HashAggOp agg, Harness h, StreamChunk in) throws InterruptedException {
    List<StreamChunk> out = new ArrayList<>();
    agg.process(0, in, out::add);
    agg.onBarrier(h.barrier(), out::add);
    return out.stream().flatMap(c -> visible(c).stream()).map(MinMaxAggTest::text).toList();
  }

  private static List<String> rows(Row... rows) {
    return Arrays.stream(rows).map(MinMaxAggTest::text).toList();
  }

  private static String text(Row r) {
    return r.op() + " " + Arrays.toString(r.values());
  }

  /** The one-phase aggregation over the raw rows (the compiler splits this plan's into phases). */
  private static HashAggOp open(Harness h) {
    PlanNode n = h.node(PlanNode.KindCase.HASH_AGG);
    HashAggOp agg = new HashAggOp(h.onePhase(n).getHashAgg(), h.planInputTypes(n, 0), h.context(n));
    agg.open();
    return agg;
  }

  @Test
  void appendOnlyInputKeepsOnlyTheExtremeInTheResultRow() throws InterruptedException {
    PlanBuilder b = new PlanBuilder("m");
    b.source("nexmark", "bid", OPTS).project("auction", "price", "_row_id")
        .groupBy("auction").agg(Agg.max("price", "hi"), Agg.min("price", "lo")).materialize("m");
    Harness h = new Harness(b.build());
    PlanNode n = h.node(PlanNode.KindCase.HASH_AGG);
    assertThat(n.getHashAgg().getAppendOnlyInput()).isTrue();
    assertThat(n.getHashAgg().getCallsList()).allMatch(c -> c.getMinmaxTableId() == 0);
    assertThat(h.job.getTablesList()).noneMatch(t -> t.getName().contains("minmax"));

    HashAggOp agg = open(h);
    assertThat(run(agg, h, chunk(THREE_LONGS, ins(1L, 5L, 1L), ins(1L, 9L, 2L), ins(2L, 4L, 3L), ins(1L, 2L, 4L))))
        .containsExactlyInAnyOrderElementsOf(rows(ins(1L, 9L, 2L), ins(2L, 4L, 4L)));
    assertThat(run(agg, h, chunk(THREE_LONGS, ins(1L, 7L, 5L), ins(2L, 4L, 6L)))).isEmpty();

    // A fresh operator (as after recovery or a cache eviction) continues from the state row.
    HashAggOp restarted = open(h);
    assertThat(run(restarted, h, chunk(THREE_LONGS, ins(1L, 3L, 7L)))).isEmpty();
    assertThat(run(restarted, h, chunk(THREE_LONGS, ins(1L, 12L, 8L), ins(1L, 1L, 9L))))
        .isEqualTo(rows(ud(1L, 9L, 2L), ui(1L, 12L, 1L)));
  }

  @Test
  void appendOnlyAggregationRefusesARetraction() throws InterruptedException {
    PlanBuilder b = new PlanBuilder("m");
    b.source("nexmark", "bid", OPTS).project("auction", "price", "_row_id").groupBy("auction").agg(Agg.max("price", "hi")).materialize("m");
    Harness h = new Harness(b.build());
    HashAggOp agg = open(h);
    run(agg, h, chunk(THREE_LONGS, ins(1L, 5L, 1L)));
    assertThatThrownBy(() -> agg.process(0, chunk(THREE_LONGS, del(1L, 5L, 1L)), c -> { }))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("append-only input received a DELETE");
  }

  @Test
  void retractingInputFindsTheNextExtremeWhenTheCurrentOneIsRetracted() throws InterruptedException {
    PlanBuilder b = new PlanBuilder("m");
    b.source("nexmark", "bid", OPTS).groupBy("auction", "bidder").agg(Agg.count("num"))
        .groupBy("auction").agg(Agg.max("num", "hi"), Agg.min("num", "lo")).materialize("m");
    Harness h = new Harness(b.build());
    PlanNode n = h.node(PlanNode.KindCase.HASH_AGG);
    // The first aggregation (the counts) reads the source; the min/max one reads the counts.
    PlanNode minMax = h.job.getFragmentsList().stream().flatMap(f -> f.getNodesList().stream())
        .filter(x -> x.hasHashAgg() && x.getHashAgg().getGroupKeysCount() == 1).findFirst().orElseThrow();
    assertThat(n.getHashAgg().getAppendOnlyInput()).isTrue();
    assertThat(minMax.getHashAgg().getAppendOnlyInput()).isFalse();
    assertThat(minMax.getHashAgg().getCallsList()).allMatch(c -> c.getMinmaxTableId() != 0);

    HashAggOp agg = new HashAggOp(minMax.getHashAgg(), h.inputTypes(minMax, 0), h.context(minMax));
    agg.open();
    // Input rows: (auction, bidder, num).
    assertThat(run(agg, h, chunk(THREE_LONGS, ins(1L, 10L, 3L), ins(1L, 11L, 7L), ins(1L, 12L, 7L), ins(1L, 13L, 1L))))
        .isEqualTo(rows(ins(1L, 7L, 1L)));
    // One of the two 7s goes: 7 stays the max.
    assertThat(run(agg, h, chunk(THREE_LONGS, ud(1L, 11L, 7L), ui(1L, 11L, 2L)))).isEmpty();
    // The other 7 and the 1 go: the next extremes come from the multiset.
    assertThat(run(agg, h, chunk(THREE_LONGS, del(1L, 12L, 7L), del(1L, 13L, 1L))))
        .isEqualTo(rows(ud(1L, 7L, 1L), ui(1L, 3L, 2L)));
    // A fresh operator (state from the store only) still retracts correctly.
    HashAggOp restarted = new HashAggOp(minMax.getHashAgg(), h.inputTypes(minMax, 0), h.context(minMax));
    restarted.open();
    assertThat(run(restarted, h, chunk(THREE_LONGS, del(1L, 10L, 3L)))).isEqualTo(rows(ud(1L, 3L, 2L), ui(1L, 2L, 2L)));
    assertThat(run(restarted, h, chunk(THREE_LONGS, del(1L, 11L, 2L)))).isEqualTo(rows(del(1L, 2L, 2L)));
  }

  @Test
  void retractingInputWithinOneEpochMatchesAMultisetModelAcrossRestarts() throws InterruptedException {
    PlanBuilder b = new PlanBuilder("m");
    b.source("nexmark", "bid", OPTS).groupBy("auction", "bidder").agg(Agg.count("num"))
        .groupBy("auction").agg(Agg.max("num", "hi"), Agg.min("num", "lo")).materialize("m");
    Harness h = new Harness(b.build());
    PlanNode minMax = h.job.getFragmentsList().stream().flatMap(f -> f.getNodesList().stream())
        .filter(x -> x.hasHashAgg() && x.getHashAgg().getGroupKeysCount() == 1).findFirst().orElseThrow();
    java.util.Random rnd = new java.util.Random(11);
    // Model: auction -> live rows (bidder -> num).
    java.util.Map<Long, java.util.Map<Long, Long>> live = new java.util.TreeMap<>();
    java.util.Map<Long, String> emitted = new java.util.TreeMap<>();
    HashAggOp agg = new HashAggOp(minMax.getHashAgg(), h.inputTypes(minMax, 0), h.context(minMax));
    agg.open();
    for (int epoch = 0; epoch < 60; epoch++) {
      List<Row> rows = new ArrayList<>();
      for (int i = 0; i < 1 + rnd.nextInt(12); i++) {
        long auction = rnd.nextInt(3);
        long bidder = rnd.nextInt(5);
        java.util.Map<Long, Long> rowsOf = live.computeIfAbsent(auction, a -> new java.util.TreeMap<>());
        Long old = rowsOf.get(bidder);
        long num = rnd.nextInt(6);
        if (old == null) {
          rows.add(ins(auction, bidder, num));
          rowsOf.put(bidder, num);
        } else if (rnd.nextBoolean()) {
          rows.add(del(auction, bidder, old));
          rowsOf.remove(bidder);
        } else {
          rows.add(ud(auction, bidder, old));
          rows.add(ui(auction, bidder, num));
          rowsOf.put(bidder, num);
        }
      }
      for (String r : run(agg, h, chunk(THREE_LONGS, rows))) {
        long auction = Long.parseLong(r.substring(r.indexOf('[') + 1, r.indexOf(',')));
        if (r.startsWith("INSERT") || r.startsWith("UPDATE_INSERT")) {
          emitted.put(auction, r.substring(r.indexOf('[')));
        } else if (r.startsWith("DELETE")) {
          emitted.remove(auction);
        }
      }
      java.util.Map<Long, String> expected = new java.util.TreeMap<>();
      live.forEach((auction, rowsOf) -> {
        if (!rowsOf.isEmpty()) {
          long hi = java.util.Collections.max(rowsOf.values());
          long lo = java.util.Collections.min(rowsOf.values());
          expected.put(auction, Arrays.toString(new Object[] {auction, hi, lo}));
        }
      });
      assertThat(emitted).as("epoch %d", epoch).isEqualTo(expected);
      if (epoch % 7 == 6) {
        agg = new HashAggOp(minMax.getHashAgg(), h.inputTypes(minMax, 0), h.context(minMax));
        agg.open();
      }
    }
  }
}
