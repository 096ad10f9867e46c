package dev.tide.stream.operator;

import static dev.tide.stream.expr.Ex.add;
import static dev.tide.stream.expr.Ex.and;
import static dev.tide.stream.expr.Ex.col;
import static dev.tide.stream.expr.Ex.eq;
import static dev.tide.stream.expr.Ex.gt;
import static dev.tide.stream.expr.Ex.lit;
import static dev.tide.stream.expr.Ex.mod;
import static dev.tide.stream.operator.Chunks.chunk;
import static dev.tide.stream.operator.Chunks.ins;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tide.common.chunk.StreamChunk;
import dev.tide.common.types.DataType;
import dev.tide.proto.plan.HashJoinNode;
import dev.tide.proto.plan.PlanNode;
import dev.tide.stream.actor.Barrier;
import dev.tide.stream.actor.Operator.Emitter;
import dev.tide.stream.expr.Ex;
import dev.tide.stream.operator.Chunks.Row;
import dev.tide.stream.plan.Agg;
import dev.tide.stream.plan.PlanBuilder;
import dev.tide.stream.plan.PlanBuilder.Stream;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;

/**
 * A join with side filters (moved into it from the filter above by the compiler) emits exactly what
 * the join without them emits through that filter: bids (auction, price, _row_id) joined with
 * auctions (id, seller), which come once per id (settled bids), or with each auction's highest price
 * (a retracting side whose rows move), rows of either side arriving first, and restarts over the
 * same state (cold caches, the filter evaluated over rows read back).
 */
class JoinSideFilterPropertyTest {
  private static final Map<String, String> OPTS = Map.of("events", "10");
  private static final DataType[] THREE_LONGS = {DataType.BIGINT, DataType.BIGINT, DataType.BIGINT};
  private static final DataType[] TWO_LONGS = {DataType.BIGINT, DataType.BIGINT};

  /** price > 30 (left), the right side's second column even (right), their sum > 40 (both: stays above). */
  private static Ex condition(String right) {
    return and(and(gt(col("price"), lit(30L)), eq(mod(col(right), lit(2L)), lit(0L))), gt(add(col("price"), col(right)), lit(40L)));
  }

  /** The join and the filter of a plan; {@code fused}: the filter is the join's only reader, so the compiler moves it in. */
  private static final class Run {
    final Harness h;
    final boolean fused;
    final boolean maxes;
    HashJoinOp join;
    HashAggOp agg; // the highest prices, feeding the join's right side (maxes), or null
    FilterOp filter; // what stays above the join, or null
    final List<String> out = new ArrayList<>();

    Run(boolean maxes, boolean fused) {
      PlanBuilder b = new PlanBuilder("j");
      Stream bids = b.source("nexmark", "bid", OPTS).project("auction", "price", "_row_id");
      Stream right = maxes ? bids.groupBy("auction").agg(Agg.max("price", "hi"))
          : b.source("nexmark", "auction", OPTS).project("id", "seller");
      Stream joined = bids.join(right, List.of("auction"), List.of(maxes ? "auction" : "id"));
      joined.filter(condition(maxes ? "hi" : "seller")).materialize("j");
      if (!fused) {
        joined.materialize("all"); // a second reader: the filter stays whole above the join
      }
      this.h = new Harness(b.build());
      this.fused = fused;
      this.maxes = maxes;
      start();
    }

    void start() {
      PlanNode n = h.node(PlanNode.KindCase.HASH_JOIN);
      join = new HashJoinOp(n.getHashJoin(), h.inputTypes(n, 0), h.inputTypes(n, 1), h.context(n));
      join.open();
      boolean hasFilter = h.job.getFragmentsList().stream().flatMap(f -> f.getNodesList().stream()).anyMatch(PlanNode::hasFilter);
      filter = hasFilter ? new FilterOp(h.node(PlanNode.KindCase.FILTER).getFilter().getCondition()) : null;
      if (maxes) {
        PlanNode a = h.onePhase(h.node(PlanNode.KindCase.HASH_AGG));
        agg = new HashAggOp(a.getHashAgg(), h.planInputTypes(a, 0), h.context(a));
        agg.open();
      }
    }

    void process(int side, StreamChunk c) throws InterruptedException {
      if (side == 0 && agg != null) {
        agg.process(0, c, x -> { }); // emits at barriers
      }
      join.process(side, c, joined());
    }

    private Emitter joined() {
      Emitter sink = chunk -> out.addAll(Chunks.texts(List.of(chunk)));
      return filter == null ? sink : chunk -> filter.process(0, chunk, sink);
    }

    void barrier() throws InterruptedException {
      Barrier b = h.barrier();
      if (agg != null) {
        agg.onBarrier(b, c -> join.process(1, c, joined())); // the maxes that changed move their matches
      }
      join.onBarrier(b, c -> { });
    }
  }

  @Property(tries = 200)
  void sideFiltersEmitWhatTheFilterAboveTheJoinKeeps(@ForAll long seed, @ForAll boolean maxes) throws InterruptedException {
    Random rnd = new Random(seed);
    Run fused = new Run(maxes, true);
    Run plain = new Run(maxes, false);
    HashJoinNode j = fused.h.node(PlanNode.KindCase.HASH_JOIN).getHashJoin();
    assertThat(j.hasLeftFilter() && j.hasRightFilter()).as("both sides' conditions moved in").isTrue();
    assertThat(plain.h.node(PlanNode.KindCase.HASH_JOIN).getHashJoin().hasLeftFilter()).isFalse();
    List<Long> auctions = new ArrayList<>(List.of(1L, 2L, 3L, 4L, 5L, 6L));
    long id = 0;
    for (int step = 0; step < 40; step++) {
      int what = rnd.nextInt(10);
      if (what < 6) {
        List<Row> bids = new ArrayList<>();
        for (int r = rnd.nextInt(5); r >= 0; r--) {
          bids.add(ins((long) 1 + rnd.nextInt(6), (long) rnd.nextInt(60), ++id));
        }
        fused.process(0, chunk(THREE_LONGS, bids));
        plain.process(0, chunk(THREE_LONGS, bids));
      } else if (what < 8 && !maxes && !auctions.isEmpty()) {
        Long a = auctions.remove(rnd.nextInt(auctions.size())); // each auction once: the side is unique and append-only
        List<Row> rows = List.of(ins(a, (long) rnd.nextInt(40)));
        fused.process(1, chunk(TWO_LONGS, rows));
        plain.process(1, chunk(TWO_LONGS, rows));
      } else {
        fused.barrier();
        plain.barrier();
        if (rnd.nextInt(3) == 0) {
          fused.start();
          plain.start();
        }
      }
      assertThat(fused.out).as("step %d", step).isEqualTo(plain.out);
    }
  }
}
