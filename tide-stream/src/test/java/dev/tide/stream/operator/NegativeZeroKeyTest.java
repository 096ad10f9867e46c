package dev.tide.stream.operator;

import static dev.tide.stream.expr.Ex.cast;
import static dev.tide.stream.expr.Ex.col;
import static dev.tide.stream.operator.Chunks.chunk;
import static dev.tide.stream.operator.Chunks.ins;
import static dev.tide.stream.operator.Chunks.visible;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tide.common.chunk.StreamChunk;
import dev.tide.common.types.DataType;
import dev.tide.proto.plan.PlanNode;
import dev.tide.stream.operator.Chunks.Row;
import dev.tide.stream.plan.Agg;
import dev.tide.stream.plan.PlanBuilder;
import dev.tide.stream.plan.PlanBuilder.Named;
import dev.tide.stream.plan.PlanBuilder.Stream;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * -0.0 and 0.0 are one key everywhere below the operators: the vnode hash and the memcomparable
 * state key both normalize -0.0, and comparisons say -0.0 = 0.0. The operators' in-memory caches
 * key groups and join keys by {@code List.equals}, where {@code Double.valueOf(-0.0)} differs from
 * {@code 0.0}, so the cache and the state table disagree.
 */
class NegativeZeroKeyTest {
  private static final Map<String, String> OPTS = Map.of("events", "10");

  private static Stream doubles(PlanBuilder b, String from, String as) {
    return b.source("nexmark", "bid", OPTS).project(List.of(new Named(cast(col(from), DataType.DOUBLE), as), new Named(col("_row_id"), "_row_id")));
  }

  @Test
  void groupByCountsNegativeAndPositiveZeroAsOneGroup() throws InterruptedException {
    PlanBuilder b = new PlanBuilder("g");
    doubles(b, "price", "d").groupBy("d").agg(Agg.count("n")).materialize("g");
    Harness h = new Harness(b.build());
    PlanNode aggNode = h.node(PlanNode.KindCase.HASH_AGG);
    HashAggOp agg = new HashAggOp(h.onePhase(aggNode).getHashAgg(), h.planInputTypes(aggNode, 0), h.context(aggNode));
    agg.open();
    List<StreamChunk> out = new ArrayList<>();
    DataType[] in = {DataType.DOUBLE, DataType.BIGINT};
    agg.process(0, chunk(in, ins(-0.0, 1L), ins(0.0, 2L)), out::add);
    agg.onBarrier(h.barrier(), out::add);
    List<Row> rows = out.stream().flatMap(c -> visible(c).stream()).toList();
    assertThat(rows).as("one group of two rows").hasSize(1);
    assertThat(rows.get(0).values()[1]).isEqualTo(2L);
  }

  @Test
  void joinMatchesNegativeZeroWithPositiveZero() throws InterruptedException {
    PlanBuilder b = new PlanBuilder("j");
    Stream left = doubles(b, "price", "d");
    Stream right = doubles(b, "bidder", "e");
    left.join(right, List.of("d"), List.of("e")).materialize("j");
    Harness h = new Harness(b.build());
    PlanNode joinNode = h.node(PlanNode.KindCase.HASH_JOIN);
    HashJoinOp join = new HashJoinOp(joinNode.getHashJoin(), h.inputTypes(joinNode, 0), h.inputTypes(joinNode, 1), h.context(joinNode));
    join.open();
    List<StreamChunk> out = new ArrayList<>();
    DataType[] in = {DataType.DOUBLE, DataType.BIGINT};
    join.process(0, chunk(in, ins(0.0, 1L)), out::add);
    join.process(1, chunk(in, ins(-0.0, 10L)), out::add);
    join.process(1, chunk(in, ins(0.0, 11L)), out::add);
    join.process(0, chunk(in, ins(0.0, 2L)), out::add);
    List<Row> rows = out.stream().flatMap(c -> visible(c).stream()).toList();
    // 2 left rows x 2 right rows, all with an equal key.
    assertThat(rows).hasSize(4);
  }
}
