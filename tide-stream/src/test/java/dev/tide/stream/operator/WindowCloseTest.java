package dev.tide.stream.operator;

import static dev.tide.stream.operator.Chunks.chunk;
import static dev.tide.stream.operator.Chunks.ins;
import static dev.tide.stream.operator.Chunks.texts;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tide.common.chunk.StreamChunk;
import dev.tide.common.types.DataType;
import dev.tide.proto.plan.PlanNode;
import dev.tide.proto.plan.TableCatalog;
import dev.tide.stream.actor.Operator;
import dev.tide.stream.actor.Watermark;
import dev.tide.stream.plan.Agg;
import dev.tide.stream.plan.PlanBuilder;
import dev.tide.stream.queries.NexmarkPlans;
import dev.tide.stream.state.StateTable;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Watermarks close windows: an aggregation that emits on window close emits each group once, when
 * the watermark passes its window, and deletes its state; a group top forgets the windows below the
 * watermark. Both drop rows that come after their window closed and pass the watermark on.
 */
class WindowCloseTest {
  private static final Map<String, String> OPTS = Map.of("events", "10");
  /** Input of the aggregation: (auction, date_time, _row_id, window_start, window_end) of 10 s tumbling windows. */
  private static final DataType[] WINDOWED = {DataType.BIGINT, DataType.TIMESTAMP, DataType.BIGINT, DataType.TIMESTAMP, DataType.TIMESTAMP};
  private static final int WINDOW_START = 3;

  /** Everything an operator emits, chunks' rows as text and watermarks, in order. */
  private static final class Collected implements Operator.Emitter {
    final List<Object> out = new ArrayList<>();

    @Override
    public void emit(StreamChunk chunk) {
      out.addAll(texts(List.of(chunk)));
    }

    @Override
    public void watermark(Watermark w) {
      out.add(w);
    }
  }

  private static Harness countsHarness() {
    PlanBuilder b = new PlanBuilder("t");
    b.source("nexmark", "bid", OPTS).project("auction", "date_time").tumble("date_time", NexmarkPlans.TUMBLE)
        .groupBy("auction", "window_start").emitOnWindowClose("window_start").agg(Agg.count("num")).materialize("t");
    return new Harness(b.build());
  }

  /** The counting aggregation as one phase over windowed bids. */
  private static HashAggOp counts(Harness h) {
    PlanNode compiled = h.job.getFragmentsList().stream().flatMap(f -> f.getNodesList().stream())
        .filter(n -> n.hasHashAgg()).findFirst().orElseThrow();
    PlanNode n = h.onePhase(compiled);
    HashAggOp op = new HashAggOp(n.getHashAgg(), h.planInputTypes(n, 0), h.context(compiled));
    op.open();
    return op;
  }

  private long rowId;

  private StreamChunk bids(long[]... auctionAndTime) {
    List<Chunks.Row> rows = new ArrayList<>();
    for (long[] r : auctionAndTime) {
      long start = r[1] / 10_000 * 10_000;
      rows.add(ins(r[0], r[1], ++rowId, start, start + 10_000));
    }
    return chunk(WINDOWED, rows);
  }

  private static List<List<Object>> stored(Harness h, String suffix) {
    TableCatalog t = h.job.getTablesList().stream().filter(c -> c.getName().endsWith(suffix)).findFirst().orElseThrow();
    return StateTable.scanAll(h.store, t).stream().map(r -> Arrays.asList(r)).toList();
  }

  @Test
  void eachGroupIsEmittedOnceWhenTheWatermarkPassesItsWindowAndItsStateIsDeleted() throws InterruptedException {
    Harness h = countsHarness();
    HashAggOp op = counts(h);
    Collected out = new Collected();
    op.process(0, bids(new long[] {1, 1_000}, new long[] {1, 2_000}, new long[] {2, 12_000}), out);
    op.onBarrier(h.barrier(), out);
    assertThat(out.out).as("nothing before its window closes, not even at a barrier").isEmpty();
    assertThat(stored(h, ".agg")).hasSize(2);

    op.onWatermark(0, new Watermark(WINDOW_START, 10_000), out);
    assertThat(out.out).containsExactly("INSERT [1, 0, 2]", new Watermark(1, 10_000));
    op.process(0, bids(new long[] {2, 15_000}), out);
    op.onWatermark(0, new Watermark(WINDOW_START, 20_000), out);
    assertThat(out.out).containsExactly("INSERT [1, 0, 2]", new Watermark(1, 10_000), "INSERT [2, 10000, 2]", new Watermark(1, 20_000));
    op.onBarrier(h.barrier(), out);
    assertThat(stored(h, ".agg")).as("closed windows keep no state").isEmpty();
  }

  @Test
  void aRowWhoseWindowHasClosedIsDropped() throws InterruptedException {
    Harness h = countsHarness();
    HashAggOp op = counts(h);
    Collected out = new Collected();
    op.onWatermark(0, new Watermark(WINDOW_START, 10_000), out);
    op.process(0, bids(new long[] {3, 5_000}, new long[] {4, 10_000}), out);
    op.onWatermark(0, new Watermark(WINDOW_START, 20_000), out);
    assertThat(out.out).containsExactly(new Watermark(1, 10_000), "INSERT [4, 10000, 1]", new Watermark(1, 20_000));
  }

  @Test
  void anOperatorStartedOnCommittedStateEmitsTheOpenGroupsItFindsThere() throws InterruptedException {
    Harness h = countsHarness();
    HashAggOp first = counts(h);
    first.process(0, bids(new long[] {1, 1_000}, new long[] {2, 2_000}, new long[] {2, 11_000}), new Collected());
    first.onBarrier(h.barrier(), new Collected());

    HashAggOp restarted = counts(h); // recovery, or the actor that gains the vnodes
    Collected out = new Collected();
    restarted.process(0, bids(new long[] {2, 3_000}), out);
    restarted.onWatermark(0, new Watermark(WINDOW_START, 10_000), out);
    assertThat(out.out.subList(0, 2)).containsExactlyInAnyOrder("INSERT [1, 0, 1]", "INSERT [2, 0, 2]");
    assertThat(out.out.subList(2, 3)).containsExactly(new Watermark(1, 10_000));
    restarted.onWatermark(0, new Watermark(WINDOW_START, Long.MAX_VALUE), out);
    assertThat(out.out.subList(3, out.out.size())).containsExactly("INSERT [2, 10000, 1]", new Watermark(1, Long.MAX_VALUE));
    restarted.onBarrier(h.barrier(), out);
    assertThat(stored(h, ".agg")).as("the groups it found in state are deleted when they close").isEmpty();
  }

  @Test
  void aGroupThatOpensAndClosesBetweenTwoBarriersLeavesNoState() throws InterruptedException {
    Harness h = countsHarness();
    HashAggOp op = counts(h);
    Collected out = new Collected();
    op.process(0, bids(new long[] {1, 1_000}, new long[] {2, 12_000}), out);
    op.onBarrier(h.barrier(), out); // (2, 10000) is stored; (1, 0) too
    op.process(0, bids(new long[] {3, 13_000}, new long[] {4, 21_000}), out);
    op.onWatermark(0, new Watermark(WINDOW_START, 20_000), out); // closes (3, 10000) before it was ever written
    op.onBarrier(h.barrier(), out);
    assertThat(out.out).contains("INSERT [1, 0, 1]", "INSERT [2, 10000, 1]", "INSERT [3, 10000, 1]");
    assertThat(stored(h, ".agg")).extracting(r -> r.subList(0, 2)).containsExactly(List.of(4L, 20_000L)); // the open window only
  }

  @Test
  void aWatermarkOnAnotherColumnClosesNothingAndEndsThere() throws InterruptedException {
    Harness h = countsHarness();
    HashAggOp op = counts(h);
    Collected out = new Collected();
    op.process(0, bids(new long[] {1, 1_000}), out);
    op.onWatermark(0, new Watermark(1, 50_000), out);
    assertThat(out.out).isEmpty();
  }

  /** (auction, price, window_start) of bids, the highest per window. */
  @Test
  void aGroupTopForgetsTheWindowsBelowTheWatermarkAndDropsTheirLateRows() throws InterruptedException {
    PlanBuilder b = new PlanBuilder("t");
    b.source("nexmark", "bid", OPTS).project("auction", "price", "date_time").tumble("date_time", NexmarkPlans.TUMBLE)
        .project("auction", "price", "window_start").groupBy("window_start").maxRows("price").materialize("t");
    Harness h = new Harness(b.build());
    PlanNode n = h.node(PlanNode.KindCase.GROUP_TOP);
    GroupTopOp top = new GroupTopOp(n.getGroupTop(), h.inputTypes(n, 0), h.context(n));
    top.open();
    DataType[] types = h.inputTypes(n, 0);
    Collected out = new Collected();
    top.process(0, chunk(types, ins(1L, 5L, 0L, 1L), ins(2L, 7L, 10_000L, 2L)), out);
    top.onBarrier(h.barrier(), out);
    assertThat(stored(h, ".top")).hasSize(2);

    top.onWatermark(0, new Watermark(2, 10_000), out);
    top.process(0, chunk(types, ins(3L, 9L, 0L, 3L), ins(4L, 8L, 10_000L, 4L)), out);
    top.onBarrier(h.barrier(), out);
    assertThat(out.out).containsExactly("INSERT [1, 5, 0, 1]", "INSERT [2, 7, 10000, 2]", new Watermark(2, 10_000),
        "DELETE [2, 7, 10000, 2]", "INSERT [4, 8, 10000, 4]");
    assertThat(stored(h, ".top")).as("window 0 forgotten, its late bid dropped").containsExactly(List.of(4L, 8L, 10_000L, 4L));
  }

  /** Persons and sellers per 10 s window (each closed by its watermark), joined by (id, window). */
  @Test
  void aJoinForgetsTheWindowsBelowBothSidesWatermarksAndPassesTheLesserOn() throws InterruptedException {
    PlanBuilder b = new PlanBuilder("t");
    PlanBuilder.Stream persons = b.source("nexmark", "person", OPTS).project("id", "date_time").tumble("date_time", NexmarkPlans.TUMBLE)
        .groupBy("id", "window_start").emitOnWindowClose("window_start").agg();
    PlanBuilder.Stream sellers = b.source("nexmark", "auction", OPTS).project("seller", "date_time").tumble("date_time", NexmarkPlans.TUMBLE)
        .groupBy("seller", "window_start").emitOnWindowClose("window_start").agg();
    persons.join(sellers, List.of("id", "window_start"), List.of("seller", "window_start")).materialize("t");
    Harness h = new Harness(b.build());
    PlanNode n = h.node(PlanNode.KindCase.HASH_JOIN);
    HashJoinOp join = new HashJoinOp(n.getHashJoin(), h.inputTypes(n, 0), h.inputTypes(n, 1), h.context(n));
    join.open();
    DataType[] types = h.inputTypes(n, 0);
    Collected out = new Collected();
    join.process(0, chunk(types, ins(1L, 0L), ins(2L, 10_000L)), out);
    join.process(1, chunk(types, ins(3L, 0L), ins(2L, 10_000L)), out);
    join.onBarrier(h.barrier(), out);
    assertThat(stored(h, ".left")).hasSize(2);
    assertThat(stored(h, ".right")).containsExactly(List.of(3L, 0L));

    join.onWatermark(0, new Watermark(1, 10_000), out);
    assertThat(out.out).as("the other side has no watermark yet").containsExactly("INSERT [2, 10000, 2, 10000]");
    join.onWatermark(1, new Watermark(1, 20_000), out);
    join.onBarrier(h.barrier(), out);
    assertThat(out.out).containsExactly("INSERT [2, 10000, 2, 10000]", new Watermark(1, 10_000), new Watermark(3, 10_000));
    assertThat(stored(h, ".left")).as("window 0 forgotten").containsExactly(List.of(2L, 10_000L));
    assertThat(stored(h, ".right")).as("seller 2 met its person and was not stored; window 0 forgotten").isEmpty();
  }
}
