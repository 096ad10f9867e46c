package dev.tide.stream.operator;

import static dev.tide.stream.operator.Chunks.chunk;
import static dev.tide.stream.operator.Chunks.ins;
import static dev.tide.stream.operator.Chunks.visible;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tide.common.chunk.StreamChunk;
import dev.tide.common.types.DataType;
import dev.tide.proto.plan.PlanNode;
import dev.tide.stream.plan.Agg;
import dev.tide.stream.plan.PlanBuilder;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** An aggregation without GROUP BY columns has one group, whose key has no columns. */
class GlobalAggTest {
  private static List<String> run(HashAggOp agg, Harness h, StreamChunk in) throws InterruptedException {
    List<StreamChunk> out = new ArrayList<>();
    agg.process(0, in, out::add);
    agg.onBarrier(h.barrier(), out::add);
    return out.stream().flatMap(c -> visible(c).stream()).map(r -> r.op() + " " + Arrays.toString(r.values())).toList();
  }

  @Test
  void countsEveryRowInOneGroupAcrossEpochs() throws InterruptedException {
    PlanBuilder b = new PlanBuilder("g");
    b.source("nexmark", "bid", Map.of("events", "10")).project("auction", "_row_id").groupBy().agg(Agg.count("n")).materialize("total");
    Harness h = new Harness(b.build());
    PlanNode n = h.node(PlanNode.KindCase.HASH_AGG);
    HashAggOp agg = new HashAggOp(h.onePhase(n).getHashAgg(), h.planInputTypes(n, 0), h.context(n));
    agg.open();
    DataType[] types = {DataType.BIGINT, DataType.BIGINT};

    assertThat(run(agg, h, chunk(types, ins(1L, 1L), ins(2L, 2L)))).containsExactly("INSERT [2]");
    assertThat(run(agg, h, chunk(types, ins(3L, 3L)))).containsExactly("UPDATE_DELETE [2]", "UPDATE_INSERT [3]");
  }
}
