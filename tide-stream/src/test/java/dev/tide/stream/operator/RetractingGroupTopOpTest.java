package dev.tide.stream.operator;

import static dev.tide.stream.operator.Chunks.chunk;
import static dev.tide.stream.operator.Chunks.del;
import static dev.tide.stream.operator.Chunks.ins;
import static dev.tide.stream.operator.Chunks.ud;
import static dev.tide.stream.operator.Chunks.ui;
import static dev.tide.stream.operator.Chunks.texts;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tide.common.chunk.StreamChunk;
import dev.tide.common.hash.VnodeBitmap;
import dev.tide.common.hash.VnodeHasher;
import dev.tide.common.time.ManualClock;
import dev.tide.common.types.DataType;
import dev.tide.proto.plan.PlanNode;
import dev.tide.stream.operator.Chunks.Row;
import dev.tide.stream.plan.Agg;
import dev.tide.stream.plan.PlanBuilder;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * The group top over a retracting input keeps every row of a group in state ordered by value: when
 * the last leader leaves, the rows holding the next best value lead, from the cache's state or, in a
 * fresh operator (after recovery, or on the actor that gains the vnode), from the committed state.
 * Rows are (group, id, value).
 */
class RetractingGroupTopOpTest {
  private static final Map<String, String> OPTS = Map.of("events", "10");
  private static final DataType[] THREE_LONGS = {DataType.BIGINT, DataType.BIGINT, DataType.BIGINT};

  /** Per (auction, _row_id) the max price, a retracting stream, then per auction the rows with the max (or min). */
  private static Harness harness(boolean max) {
    PlanBuilder b = new PlanBuilder("t");
    PlanBuilder.Grouped g = b.source("nexmark", "bid", OPTS).project("auction", "price", "_row_id")
        .groupBy("auction", "_row_id").agg(Agg.max("price", "price")).groupBy("auction");
    (max ? g.maxRows("price") : g.minRows("price")).materialize("t");
    return new Harness(b.build());
  }

  private static RetractingGroupTopOp open(Harness h) {
    return open(h, h.context(h.node(PlanNode.KindCase.GROUP_TOP)));
  }

  private static RetractingGroupTopOp open(Harness h, ActorContext ctx) {
    PlanNode n = h.node(PlanNode.KindCase.GROUP_TOP);
    RetractingGroupTopOp top = new RetractingGroupTopOp(n.getGroupTop(), h.inputTypes(n, 0), ctx);
    top.open();
    return top;
  }

  private static List<String> run(RetractingGroupTopOp top, Row... in) throws InterruptedException {
    List<StreamChunk> out = new ArrayList<>();
    top.process(0, chunk(THREE_LONGS, in), out::add);
    return texts(out);
  }


  @Test
  void whenTheLastLeaderIsDeletedTheNextBestRowsLeadTiesIncluded() throws InterruptedException {
    RetractingGroupTopOp top = open(harness(true));
    assertThat(run(top, ins(1L, 1L, 5L), ins(1L, 2L, 3L), ins(1L, 3L, 3L), ins(1L, 4L, 9L), ins(2L, 5L, 1L)))
        .isEqualTo(texts(ins(1L, 1L, 5L), del(1L, 1L, 5L), ins(1L, 4L, 9L), ins(2L, 5L, 1L)));
    assertThat(run(top, del(1L, 4L, 9L))).isEqualTo(texts(del(1L, 4L, 9L), ins(1L, 1L, 5L)));
    assertThat(run(top, del(1L, 1L, 5L), del(1L, 2L, 3L))).isEqualTo(texts(del(1L, 1L, 5L), ins(1L, 3L, 3L)));
    assertThat(run(top, ins(1L, 6L, 3L))).isEqualTo(texts(ins(1L, 6L, 3L)));
    assertThat(run(top, del(1L, 3L, 3L))).isEqualTo(texts(del(1L, 3L, 3L)));
    assertThat(run(top, del(1L, 6L, 3L), del(2L, 5L, 1L))).isEqualTo(texts(del(1L, 6L, 3L), del(2L, 5L, 1L)));
    assertThat(run(top, ins(1L, 7L, 2L))).isEqualTo(texts(ins(1L, 7L, 2L)));
  }

  @Test
  void updatesMoveRowsBetweenTheLeadersAndTheRest() throws InterruptedException {
    RetractingGroupTopOp top = open(harness(true));
    run(top, ins(1L, 1L, 5L), ins(1L, 2L, 3L));
    // From worse to best: the old leader is retracted.
    assertThat(run(top, ud(1L, 2L, 3L), ui(1L, 2L, 7L))).isEqualTo(texts(del(1L, 1L, 5L), ins(1L, 2L, 7L)));
    // A leader rising stays the leader, without reading state; one falling to a tie joins the other.
    assertThat(run(top, ud(1L, 2L, 7L), ui(1L, 2L, 8L))).isEqualTo(texts(del(1L, 2L, 7L), ins(1L, 2L, 8L)));
    assertThat(run(top, ud(1L, 2L, 8L), ui(1L, 2L, 5L))).isEqualTo(texts(del(1L, 2L, 8L), ins(1L, 1L, 5L), ins(1L, 2L, 5L)));
    // A row falling below the others in the same chunk as its delete: the others lead.
    assertThat(run(top, ud(1L, 1L, 5L), ui(1L, 1L, 1L), ud(1L, 2L, 5L), ui(1L, 2L, 4L)))
        .isEqualTo(texts(del(1L, 1L, 5L), del(1L, 2L, 5L), ins(1L, 2L, 4L)));
  }

  @Test
  void minRowsLeadWithTheLeastValueAndNullValuesAreNeitherStoredNorLead() throws InterruptedException {
    RetractingGroupTopOp top = open(harness(false));
    assertThat(run(top, ins(1L, 1L, null), ins(1L, 2L, 5L), ins(1L, 3L, 3L), ins(1L, 4L, 4L)))
        .isEqualTo(texts(ins(1L, 2L, 5L), del(1L, 2L, 5L), ins(1L, 3L, 3L)));
    assertThat(run(top, del(1L, 3L, 3L), del(1L, 1L, null))).isEqualTo(texts(del(1L, 3L, 3L), ins(1L, 4L, 4L)));
  }

  @Test
  void aFreshOperatorContinuesFromTheCommittedRowsOnly() throws InterruptedException {
    Harness h = harness(true);
    RetractingGroupTopOp top = open(h);
    run(top, ins(1L, 1L, 5L), ins(1L, 2L, 9L), ins(1L, 3L, 7L));
    top.onBarrier(h.barrier(), c -> { });
    run(top, del(1L, 3L, 7L), ins(1L, 4L, 8L)); // never committed: lost with the failed actor

    RetractingGroupTopOp recovered = open(h);
    assertThat(run(recovered, del(1L, 2L, 9L))).isEqualTo(texts(del(1L, 2L, 9L), ins(1L, 3L, 7L)));
    assertThat(run(recovered, del(1L, 3L, 7L))).isEqualTo(texts(del(1L, 3L, 7L), ins(1L, 1L, 5L)));
  }

  @Test
  void aDeleteOfNegativeZeroRetractsTheLeaderHoldingZeroItsStateRow() throws InterruptedException {
    PlanBuilder b = new PlanBuilder("t");
    b.source("nexmark", "bid", OPTS).project("auction", "price", "_row_id").groupBy("auction", "_row_id")
        .agg(Agg.avg("price", "p")).groupBy("auction").maxRows("p").materialize("t");
    Harness h = new Harness(b.build());
    DataType[] types = {DataType.BIGINT, DataType.BIGINT, DataType.DOUBLE};
    PlanNode n = h.node(PlanNode.KindCase.GROUP_TOP);
    RetractingGroupTopOp top = new RetractingGroupTopOp(n.getGroupTop(), h.inputTypes(n, 0), h.context(n));
    top.open();
    top.process(0, chunk(types, ins(1L, 1L, 0.0), ins(1L, 2L, -1.0)), c -> { });
    top.onBarrier(h.barrier(), c -> { });

    RetractingGroupTopOp recovered = new RetractingGroupTopOp(n.getGroupTop(), h.inputTypes(n, 0), h.context(n));
    recovered.open();
    List<StreamChunk> out = new ArrayList<>();
    recovered.process(0, chunk(types, del(1L, 1L, -0.0)), out::add);
    assertThat(texts(out))
        .isEqualTo(texts(del(1L, 1L, 0.0), ins(1L, 2L, -1.0)));
  }

  @Test
  void anActorThatGainsAVnodeReadsTheRowsItsOwnerCommitted() throws InterruptedException {
    Harness h = harness(true);
    PlanNode n = h.node(PlanNode.KindCase.GROUP_TOP);
    ActorContext all = h.context(n);
    int vnode = new VnodeHasher().vnode(new Object[] {1L}, all.vnodeCount());
    VnodeBitmap full = VnodeBitmap.full(all.vnodeCount());
    VnodeBitmap without = full.andNot(VnodeBitmap.of(all.vnodeCount(), vnode));
    RetractingGroupTopOp a = open(h);
    run(a, ins(1L, 1L, 5L), ins(1L, 2L, 6L));
    a.onBarrier(h.barrier(), c -> { });
    // The vnode of group 1 moves to actor b, which deletes the leader, and then back to a.
    a.updateVnodes(full, without);
    RetractingGroupTopOp b = open(h, new ActorContext(2, all.jobId(), all.vnodeCount(), VnodeBitmap.of(all.vnodeCount(), vnode),
        List.of(), new TreeMap<>(all.tables()), h.store, new ManualClock(0)));
    assertThat(run(b, del(1L, 2L, 6L), ins(1L, 3L, 4L))).isEqualTo(texts(del(1L, 2L, 6L), ins(1L, 1L, 5L)));
    b.onBarrier(h.barrier(), c -> { });
    a.updateVnodes(without, full);
    assertThat(run(a, del(1L, 1L, 5L))).isEqualTo(texts(del(1L, 1L, 5L), ins(1L, 3L, 4L)));
  }
}
