package dev.tide.stream.operator;

import static dev.tide.stream.operator.Chunks.chunk;
import static dev.tide.stream.operator.Chunks.ins;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tide.common.chunk.Op;
import dev.tide.common.chunk.StreamChunk;
import dev.tide.common.types.DataType;
import dev.tide.proto.plan.PlanNode;
import dev.tide.stream.actor.Barrier;
import dev.tide.stream.actor.Operator;
import dev.tide.stream.actor.Operator.Emitter;
import dev.tide.stream.actor.Watermark;
import dev.tide.stream.operator.Chunks.Row;
import dev.tide.stream.plan.Agg;
import dev.tide.stream.plan.PlanBuilder;
import dev.tide.stream.state.StateTable;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;

/**
 * The fused session aggregation ({@link SessionAggOp}) gives the view the plan it replaces gives: a
 * session window ({@link SessionWindowOp}) feeding a hash aggregation. Random bids of three bidders,
 * out of order, some behind the watermark, some with a null price, watermarks and barriers between
 * them, and restarts from committed state; grouped by bidder and window_start and/or window_end,
 * or by the window alone (no partition key).
 * After every barrier both views hold the same rows, and each changelog is well formed against its
 * view (an insert of a new key, a delete or update of the row the view holds); at the end of the
 * input every session has closed and left state.
 */
class SessionAggPropertyTest {
  private static final DataType[] IN = {DataType.BIGINT, DataType.BIGINT, DataType.TIMESTAMP, DataType.BIGINT};
  /** Group keys; the last grouping has no partition key: one session sequence over all bids. */
  private static final List<List<String>> GROUPINGS = List.of(List.of("bidder", "window_start", "window_end"),
      List.of("window_end", "bidder"), List.of("bidder", "window_start"), List.of("window_start", "window_end"));
  private static final Agg[] CALLS = {Agg.count("n"), Agg.count("price", "priced"), Agg.sum("price", "total"),
      Agg.min("price", "low"), Agg.max("price", "high"), Agg.avg("price", "mean")};

  private static Harness plan(List<String> grouping, boolean fused) {
    PlanBuilder b = new PlanBuilder("s");
    PlanBuilder.Stream s = b.source("nexmark", "bid", Map.of("events", "10")).project("bidder", "price", "date_time", "_row_id")
        .session("date_time", grouping.contains("bidder") ? List.of("bidder") : List.of(), Duration.ofMillis(10));
    s.groupBy(grouping.toArray(String[]::new)).agg(CALLS).materialize("agg");
    if (!fused) {
      s.materialize("rows"); // a second reader of the session window: the compiler leaves it unfused
    }
    return new Harness(b.build());
  }

  /** Either plan, driven step by step; its output applied to a view (group key → row). */
  private static final class Run {
    final List<String> grouping;
    final boolean fused;
    final Harness h;
    final Map<List<Object>, List<Object>> view = new HashMap<>();
    Operator first;
    HashAggOp agg;

    Run(List<String> grouping, boolean fused) {
      this.grouping = grouping;
      this.fused = fused;
      this.h = plan(grouping, fused);
      start();
    }

    /** Operators built afresh over the committed state (a restart). */
    void start() {
      if (fused) {
        PlanNode n = h.node(PlanNode.KindCase.SESSION_AGG);
        first = new SessionAggOp(n.getSessionAgg(), h.inputTypes(n, 0), h.context(n));
      } else {
        PlanNode n = h.node(PlanNode.KindCase.SESSION_WINDOW);
        first = new SessionWindowOp(n.getSessionWindow(), h.inputTypes(n, 0), h.context(n));
        PlanNode a = h.node(PlanNode.KindCase.HASH_AGG);
        agg = new HashAggOp(a.getHashAgg(), h.inputTypes(a, 0), h.context(a));
        agg.open();
      }
      first.open();
    }

    /** The rows of the state table whose name ends so. */
    List<Object[]> stateRows(String suffix) {
      return StateTable.scanAll(h.store, h.job.getTablesList().stream().filter(t -> t.getName().endsWith(suffix)).findFirst().orElseThrow());
    }

    /** Where the first operator's output goes: the view, or the aggregation and then the view. */
    Emitter out() {
      return fused ? this::apply : c -> agg.process(0, c, this::apply);
    }

    void rows(List<Row> rows) throws InterruptedException {
      first.process(0, chunk(IN, rows), out());
    }

    void watermark(long value) throws InterruptedException {
      first.onWatermark(0, new Watermark(2, value), out());
    }

    void barrier() throws InterruptedException {
      Barrier b = h.barrier();
      first.onBarrier(b, out());
      if (!fused) {
        agg.onBarrier(b, this::apply);
      }
    }

    private void apply(StreamChunk c) {
      for (int i = 0; i < c.size(); i++) {
        if (!c.visible(i)) {
          continue;
        }
        List<Object> row = Arrays.asList(c.row(i));
        List<Object> key = row.subList(0, grouping.size());
        Op op = Op.of(c.op(i));
        if (Op.isInsert(c.op(i))) {
          assertThat(view).as("%s of a key the view holds (fused %s)", op, fused).doesNotContainKey(key);
          view.put(key, row);
        } else {
          assertThat(view.get(key)).as("%s of the row the view holds (fused %s)", op, fused).isEqualTo(row);
          view.remove(key);
        }
      }
    }
  }

  @Property(tries = 200)
  void theFusedAggregationGivesTheViewOfTheSessionWindowAndAggregation(@ForAll long seed, @ForAll @IntRange(min = 0, max = 3) int g)
      throws InterruptedException {
    Random rnd = new Random(seed);
    List<String> grouping = GROUPINGS.get(g);
    Run fused = new Run(grouping, true);
    Run plain = new Run(grouping, false);
    long time = 1_000;
    long watermark = Long.MIN_VALUE;
    long id = 0;
    for (int step = 0; step < 60; step++) {
      int what = rnd.nextInt(10);
      if (what < 6) {
        List<Row> rows = new ArrayList<>();
        for (int r = rnd.nextInt(6); r >= 0; r--) {
          time += rnd.nextInt(6);
          long t = time - rnd.nextInt(25); // out of order, now and then behind the watermark
          Long price = rnd.nextInt(5) == 0 ? null : (long) rnd.nextInt(100);
          rows.add(ins((long) rnd.nextInt(3), price, t, ++id));
        }
        fused.rows(rows);
        plain.rows(rows);
      } else if (what < 8) {
        watermark = Math.max(watermark, time - rnd.nextInt(20));
        fused.watermark(watermark);
        plain.watermark(watermark);
      } else {
        fused.barrier();
        plain.barrier();
        assertThat(fused.view).as("after barrier at step %d", step).isEqualTo(plain.view);
        if (rnd.nextInt(4) == 0) {
          fused.start();
          plain.start();
          if (watermark != Long.MIN_VALUE) { // a restarted source sends its watermark again
            fused.watermark(watermark);
            plain.watermark(watermark);
          }
        }
      }
    }
    // The end of the input closes every session: the fused state is empty, like the session window's.
    fused.watermark(Long.MAX_VALUE);
    plain.watermark(Long.MAX_VALUE);
    fused.barrier();
    plain.barrier();
    assertThat(fused.view).isEqualTo(plain.view);
    assertThat(fused.stateRows(".sessions")).isEmpty();
    assertThat(plain.stateRows(".session")).isEmpty();
  }
}
