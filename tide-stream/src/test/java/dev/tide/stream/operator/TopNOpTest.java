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
import java.util.List;
import java.util.Map;
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

  private static List<String> run(TopNOp op, Row... in) throws InterruptedException {
    List<StreamChunk> out = new ArrayList<>();
    op.process(0, chunk(IN, in), out::add);
    return texts(out);
  }

  @Test
  void appendOnlyRowsPushTheLastOneOutAndShiftNumbers() throws InterruptedException {
    TopNOp op = open(harness(false));
    assertThat(run(op, ins(1L, 10L, 5L), ins(2L, 11L, 7L))).isEqualTo(texts(ins(1L, 10L, 5L, 1L), ins(2L, 11L, 7L, 1L)));
    assertThat(run(op, ins(1L, 12L, 9L))).isEqualTo(texts(ins(1L, 12L, 9L, 1L), ud(1L, 10L, 5L, 1L), ui(1L, 10L, 5L, 2L)));
    // Equal to the second: the greater key ranks after it, out of the top 2; a better one pushes row 10 out.
    assertThat(run(op, ins(1L, 13L, 5L))).isEqualTo(texts());
    assertThat(run(op, ins(1L, 9L, 5L))).isEqualTo(texts(del(1L, 10L, 5L, 2L), ins(1L, 9L, 5L, 2L)));
    assertThat(run(op, ins(1L, 14L, 1L), ins(1L, 15L, 8L))).isEqualTo(texts(del(1L, 9L, 5L, 2L), ins(1L, 15L, 8L, 2L)));
  }

  @Test
  void overARetractingInputTheNextRowEntersWhenOneLeaves() throws InterruptedException {
    Harness h = harness(true);
    TopNOp op = open(h);
    run(op, ins(1L, 10L, 5L), ins(1L, 11L, 7L), ins(1L, 12L, 3L));
    op.onBarrier(h.barrier(), c -> { });
    TopNOp fresh = open(h); // rebuilt from committed state
    assertThat(run(fresh, del(1L, 11L, 7L))).isEqualTo(texts(del(1L, 11L, 7L, 1L), ud(1L, 10L, 5L, 2L), ui(1L, 10L, 5L, 1L),
        ins(1L, 12L, 3L, 2L)));
    // An update of a value in place: same row and number, new value.
    assertThat(run(fresh, ud(1L, 12L, 3L), ui(1L, 12L, 4L))).isEqualTo(texts(ud(1L, 12L, 3L, 2L), ui(1L, 12L, 4L, 2L)));
    assertThat(run(fresh, del(1L, 10L, 5L), del(1L, 12L, 4L))).isEqualTo(texts(del(1L, 10L, 5L, 1L), del(1L, 12L, 4L, 2L)));
  }
}
