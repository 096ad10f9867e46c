package dev.tide.stream.operator;

import static dev.tide.stream.operator.Chunks.chunk;
import static dev.tide.stream.operator.Chunks.ins;
import static dev.tide.stream.operator.Chunks.texts;
import static dev.tide.stream.operator.Chunks.ud;
import static dev.tide.stream.operator.Chunks.ui;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tide.common.chunk.StreamChunk;
import dev.tide.common.types.DataType;
import dev.tide.proto.plan.PlanNode;
import dev.tide.stream.operator.Chunks.Row;
import dev.tide.stream.plan.PlanBuilder;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Session windows of a 10 ms gap per bidder: a row joins the runs of rows less than the gap away,
 * and rows whose window changed (a session extended or two merged) since they were emitted are
 * updated, at the barrier. Rows are (bidder, date_time, _row_id), then window_start and window_end.
 */
class SessionWindowOpTest {
  private static final DataType[] IN = {DataType.BIGINT, DataType.TIMESTAMP, DataType.BIGINT};

  private static Harness harness() {
    PlanBuilder b = new PlanBuilder("s");
    b.source("nexmark", "bid", Map.of("events", "10")).project("bidder", "date_time", "_row_id")
        .session("date_time", List.of("bidder"), Duration.ofMillis(10)).materialize("s");
    return new Harness(b.build());
  }

  private static SessionWindowOp open(Harness h) {
    PlanNode n = h.node(PlanNode.KindCase.SESSION_WINDOW);
    SessionWindowOp op = new SessionWindowOp(n.getSessionWindow(), h.inputTypes(n, 0), h.context(n));
    op.open();
    return op;
  }

  /** What the operator emits for {@code in} up to and at the next barrier. */
  private static List<String> run(Harness h, SessionWindowOp op, Row... in) throws InterruptedException {
    List<StreamChunk> out = new ArrayList<>();
    op.process(0, chunk(IN, in), out::add);
    assertThat(out).as("nothing is emitted before the barrier").isEmpty();
    op.onBarrier(h.barrier(), out::add);
    return texts(out);
  }

  @Test
  void rowsExtendAndMergeSessionsPerPartition() throws InterruptedException {
    Harness h = harness();
    SessionWindowOp op = open(h);
    assertThat(run(h, op, ins(1L, 100L, 1L), ins(2L, 105L, 2L)))
        .containsExactlyInAnyOrderElementsOf(texts(ins(1L, 100L, 1L, 100L, 110L), ins(2L, 105L, 2L, 105L, 115L)));
    // 120 is 20 away from 100: a session of its own; 109 extends the first one.
    assertThat(run(h, op, ins(1L, 120L, 3L))).isEqualTo(texts(ins(1L, 120L, 3L, 120L, 130L)));
    assertThat(run(h, op, ins(1L, 109L, 4L))).isEqualTo(texts(ud(1L, 100L, 1L, 100L, 110L), ui(1L, 100L, 1L, 100L, 119L),
        ins(1L, 109L, 4L, 100L, 119L)));
    // 114 is less than 10 from 109 and from 120: the two sessions merge into [100, 130).
    assertThat(run(h, op, ins(1L, 114L, 5L))).containsExactlyInAnyOrderElementsOf(texts(
        ud(1L, 100L, 1L, 100L, 119L), ui(1L, 100L, 1L, 100L, 130L), ud(1L, 109L, 4L, 100L, 119L), ui(1L, 109L, 4L, 100L, 130L),
        ud(1L, 120L, 3L, 120L, 130L), ui(1L, 120L, 3L, 100L, 130L), ins(1L, 114L, 5L, 100L, 130L)));
    // Inside a session without moving its bounds: only the row itself.
    assertThat(run(h, op, ins(1L, 110L, 6L))).isEqualTo(texts(ins(1L, 110L, 6L, 100L, 130L)));
    // Exactly the gap away: not the same session.
    assertThat(run(h, op, ins(2L, 95L, 7L))).isEqualTo(texts(ins(2L, 95L, 7L, 95L, 105L)));
  }

  @Test
  void aSessionGrowingWithinAnEpochIsEmittedOnceWithItsWindowAtTheBarrier() throws InterruptedException {
    Harness h = harness();
    SessionWindowOp op = open(h);
    assertThat(run(h, op, ins(1L, 100L, 1L), ins(1L, 105L, 2L), ins(1L, 109L, 3L), ins(1L, 118L, 4L))).isEqualTo(texts(
        ins(1L, 100L, 1L, 100L, 128L), ins(1L, 105L, 2L, 100L, 128L), ins(1L, 109L, 3L, 100L, 128L), ins(1L, 118L, 4L, 100L, 128L)));
    // Extended twice in the next epoch: one update pair per row emitted before, with the last window.
    assertThat(run(h, op, ins(1L, 127L, 5L), ins(1L, 136L, 6L))).isEqualTo(texts(
        ud(1L, 100L, 1L, 100L, 128L), ui(1L, 100L, 1L, 100L, 146L), ud(1L, 105L, 2L, 100L, 128L), ui(1L, 105L, 2L, 100L, 146L),
        ud(1L, 109L, 3L, 100L, 128L), ui(1L, 109L, 3L, 100L, 146L), ud(1L, 118L, 4L, 100L, 128L), ui(1L, 118L, 4L, 100L, 146L),
        ins(1L, 127L, 5L, 100L, 146L), ins(1L, 136L, 6L, 100L, 146L)));
  }

  @Test
  void aFreshOperatorRebuildsSessionsFromCommittedState() throws InterruptedException {
    Harness h = harness();
    SessionWindowOp op = open(h);
    run(h, op, ins(1L, 100L, 1L), ins(1L, 105L, 2L), ins(1L, 130L, 3L));
    SessionWindowOp recovered = open(h);
    assertThat(run(h, recovered, ins(1L, 121L, 4L))).isEqualTo(texts(
        ins(1L, 121L, 4L, 121L, 140L), ud(1L, 130L, 3L, 130L, 140L), ui(1L, 130L, 3L, 121L, 140L)));
    assertThat(run(h, recovered, ins(1L, 114L, 5L))).containsExactlyInAnyOrderElementsOf(texts(
        ud(1L, 100L, 1L, 100L, 115L), ui(1L, 100L, 1L, 100L, 140L), ud(1L, 105L, 2L, 100L, 115L), ui(1L, 105L, 2L, 100L, 140L),
        ud(1L, 121L, 4L, 121L, 140L), ui(1L, 121L, 4L, 100L, 140L), ud(1L, 130L, 3L, 121L, 140L), ui(1L, 130L, 3L, 100L, 140L),
        ins(1L, 114L, 5L, 100L, 140L)));
  }

  @Test
  void theWatermarkClosesSessionsWhoseGapHasPassedAndTheirRowsLeaveState() throws InterruptedException {
    Harness h = harness();
    SessionWindowOp op = open(h);
    List<StreamChunk> out = new ArrayList<>();
    op.process(0, chunk(IN, ins(1L, 100L, 1L), ins(1L, 105L, 2L), ins(1L, 130L, 3L), ins(2L, 110L, 4L)), out::add);
    // Sessions: bidder 1 [100, 115) and [130, 140), bidder 2 [110, 120). Watermark 120 closes two,
    // whose rows are emitted before they leave (with the other open rows of their partitions).
    op.onWatermark(0, new dev.tide.stream.actor.Watermark(1, 120L), out::add);
    assertThat(texts(out)).containsExactlyInAnyOrderElementsOf(texts(ins(1L, 100L, 1L, 100L, 115L), ins(1L, 105L, 2L, 100L, 115L),
        ins(1L, 130L, 3L, 130L, 140L), ins(2L, 110L, 4L, 110L, 120L)));
    op.onBarrier(h.barrier(), c -> { });
    dev.tide.proto.plan.TableCatalog t = h.job.getTablesList().stream().filter(c -> c.getName().endsWith(".session")).findFirst()
        .orElseThrow();
    assertThat(dev.tide.stream.state.StateTable.scanAll(h.store, t)).extracting(r -> r[2]).containsExactly(3L);
    // A row after the watermark joins only the open session.
    assertThat(run(h, op, ins(1L, 125L, 5L))).isEqualTo(texts(ins(1L, 125L, 5L, 125L, 140L), ud(1L, 130L, 3L, 130L, 140L),
        ui(1L, 130L, 3L, 125L, 140L)));
    // A fresh operator indexes the owned state at its first watermark.
    SessionWindowOp fresh = open(h);
    fresh.onWatermark(0, new dev.tide.stream.actor.Watermark(1, 140L), c -> { });
    fresh.onBarrier(h.barrier(), c -> { });
    assertThat(dev.tide.stream.state.StateTable.scanAll(h.store, t)).isEmpty();
  }
}
