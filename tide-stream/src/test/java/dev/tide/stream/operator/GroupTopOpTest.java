package dev.tide.stream.operator;

import static dev.tide.stream.operator.Chunks.chunk;
import static dev.tide.stream.operator.Chunks.del;
import static dev.tide.stream.operator.Chunks.ins;
import static dev.tide.stream.operator.Chunks.texts;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tide.common.chunk.StreamChunk;
import dev.tide.common.hash.VnodeBitmap;
import dev.tide.common.hash.VnodeHasher;
import dev.tide.common.time.ManualClock;
import dev.tide.common.types.DataType;
import dev.tide.proto.plan.PlanNode;
import dev.tide.proto.plan.TableCatalog;
import dev.tide.stream.expr.Ex;
import dev.tide.stream.plan.PlanBuilder;
import dev.tide.stream.state.StateTable;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * The group top keeps, per group, the rows holding the best value: ties join the leaders, a better
 * value retracts them, and its state holds exactly the rows emitted and not retracted, so a fresh
 * operator (after recovery, or on the actor that gains the vnode) continues from it.
 */
class GroupTopOpTest {
  private static final Map<String, String> OPTS = Map.of("events", "10");
  private static final DataType[] THREE_LONGS = {DataType.BIGINT, DataType.BIGINT, DataType.BIGINT};

  /** (auction, price, _row_id) of bids, grouped by auction: the highest (or lowest) bids. */
  private static Harness harness(boolean max) {
    PlanBuilder b = new PlanBuilder("t");
    PlanBuilder.Grouped g = b.source("nexmark", "bid", OPTS).project("auction", "price", "_row_id").groupBy("auction");
    (max ? g.maxRows("price") : g.minRows("price")).materialize("t");
    return new Harness(b.build());
  }

  private static GroupTopOp open(Harness h) {
    return open(h, h.context(h.node(PlanNode.KindCase.GROUP_TOP)));
  }

  private static GroupTopOp open(Harness h, ActorContext ctx) {
    PlanNode n = h.node(PlanNode.KindCase.GROUP_TOP);
    GroupTopOp top = new GroupTopOp(n.getGroupTop(), h.inputTypes(n, 0), ctx);
    top.open();
    return top;
  }

  /** The rows the operator emits for {@code in}, in order, as "OP [values]". */
  private static List<String> run(GroupTopOp top, StreamChunk in) throws InterruptedException {
    List<StreamChunk> out = new ArrayList<>();
    top.process(0, in, out::add);
    return texts(out);
  }


  private static List<List<Object>> stored(Harness h) {
    TableCatalog t = h.job.getTablesList().stream().filter(c -> c.getName().endsWith(".top")).findFirst().orElseThrow();
    return StateTable.scanAll(h.store, t).stream().map(Arrays::asList).toList();
  }

  @Test
  void tiesJoinTheLeadersAndABetterValueRetractsThem() throws InterruptedException {
    Harness h = harness(true);
    GroupTopOp top = open(h);
    assertThat(run(top, chunk(THREE_LONGS, ins(1L, 5L, 1L), ins(1L, 5L, 2L), ins(1L, 3L, 3L), ins(2L, 4L, 4L), ins(1L, 9L, 5L))))
        .isEqualTo(texts(ins(1L, 5L, 1L), ins(1L, 5L, 2L), ins(2L, 4L, 4L), del(1L, 5L, 1L), del(1L, 5L, 2L), ins(1L, 9L, 5L)));
    assertThat(run(top, chunk(THREE_LONGS, ins(1L, 8L, 6L), ins(2L, 4L, 7L))))
        .isEqualTo(texts(ins(2L, 4L, 7L)));
    top.onBarrier(h.barrier(), c -> { });
    assertThat(stored(h)).containsExactlyInAnyOrder(List.of(1L, 9L, 5L), List.of(2L, 4L, 4L), List.of(2L, 4L, 7L));
  }

  @Test
  void aFreshOperatorContinuesFromTheCommittedLeaders() throws InterruptedException {
    Harness h = harness(true);
    GroupTopOp top = open(h);
    run(top, chunk(THREE_LONGS, ins(1L, 5L, 1L), ins(1L, 9L, 2L), ins(1L, 9L, 3L), ins(2L, 4L, 4L)));
    top.onBarrier(h.barrier(), c -> { });

    // As after a recovery: a new instance with nothing cached reads the leaders from state.
    GroupTopOp restarted = open(h);
    assertThat(run(restarted, chunk(THREE_LONGS, ins(1L, 7L, 5L), ins(1L, 9L, 6L)))).isEqualTo(texts(ins(1L, 9L, 6L)));
    assertThat(run(restarted, chunk(THREE_LONGS, ins(1L, 10L, 7L), ins(2L, 3L, 8L))))
        .isEqualTo(texts(del(1L, 9L, 2L), del(1L, 9L, 3L), del(1L, 9L, 6L), ins(1L, 10L, 7L)));
    restarted.onBarrier(h.barrier(), c -> { });
    assertThat(stored(h)).containsExactlyInAnyOrder(List.of(1L, 10L, 7L), List.of(2L, 4L, 4L));
  }

  @Test
  void minRowsKeepTheLeastAndNullValuesNeverLead() throws InterruptedException {
    Harness h = harness(false);
    GroupTopOp top = open(h);
    assertThat(run(top, chunk(THREE_LONGS, ins(1L, null, 1L), ins(1L, 5L, 2L), ins(1L, null, 3L), ins(1L, 3L, 4L), ins(1L, 3L, 5L))))
        .isEqualTo(texts(ins(1L, 5L, 2L), del(1L, 5L, 2L), ins(1L, 3L, 4L), ins(1L, 3L, 5L)));
  }

  @Test
  void nullGroupKeysFormOneGroup() throws InterruptedException {
    Harness h = harness(true);
    GroupTopOp top = open(h);
    assertThat(run(top, chunk(THREE_LONGS, ins(null, 5L, 1L), ins(1L, 6L, 2L), ins(null, 7L, 3L), ins(null, 7L, 4L))))
        .isEqualTo(texts(ins(null, 5L, 1L), ins(1L, 6L, 2L), del(null, 5L, 1L), ins(null, 7L, 3L), ins(null, 7L, 4L)));
    top.onBarrier(h.barrier(), c -> { });
    assertThat(run(open(h), chunk(THREE_LONGS, ins(null, 8L, 5L))))
        .isEqualTo(texts(del(null, 7L, 3L), del(null, 7L, 4L), ins(null, 8L, 5L)));
  }

  @Test
  void anActorThatRegainsAVnodeReadsWhatTheOtherOwnerWroteMeanwhile() throws InterruptedException {
    Harness h = harness(true);
    PlanNode n = h.node(PlanNode.KindCase.GROUP_TOP);
    ActorContext all = h.context(n);
    int vnode = new VnodeHasher().vnode(new Object[] {1L}, all.vnodeCount());
    VnodeBitmap full = VnodeBitmap.full(all.vnodeCount());
    VnodeBitmap without = full.andNot(VnodeBitmap.of(all.vnodeCount(), vnode));
    GroupTopOp a = open(h);
    run(a, chunk(THREE_LONGS, ins(1L, 5L, 1L)));
    a.onBarrier(h.barrier(), c -> { });
    // The vnode of group 1 moves to actor b, which raises the best value, and then back to a.
    a.updateVnodes(full, without);
    GroupTopOp b = open(h, new ActorContext(2, all.jobId(), all.vnodeCount(), VnodeBitmap.of(all.vnodeCount(), vnode), List.of(),
        new TreeMap<>(all.tables()), h.store, new ManualClock(0)));
    assertThat(run(b, chunk(THREE_LONGS, ins(1L, 8L, 2L)))).isEqualTo(texts(del(1L, 5L, 1L), ins(1L, 8L, 2L)));
    b.onBarrier(h.barrier(), c -> { });
    a.updateVnodes(without, full);
    assertThat(run(a, chunk(THREE_LONGS, ins(1L, 6L, 3L), ins(1L, 8L, 4L)))).isEqualTo(texts(ins(1L, 8L, 4L)));
  }

  @Test
  void textKeysAndTextOrDoubleValuesLeadAlikeFromTheCacheAndFromState() throws InterruptedException {
    PlanBuilder b = new PlanBuilder("t");
    b.source("nexmark", "person", OPTS).project("state", "name", "id").groupBy("state").minRows("name").materialize("t");
    Harness h = new Harness(b.build());
    DataType[] people = {DataType.VARCHAR, DataType.VARCHAR, DataType.BIGINT};
    GroupTopOp top = open(h);
    assertThat(run(top, chunk(people, ins("OR", "kim", 1L), ins(null, "ann", 2L), ins("OR", "bo", 3L), ins("OR", "zed", 4L))))
        .isEqualTo(texts(ins("OR", "kim", 1L), ins(null, "ann", 2L), del("OR", "kim", 1L), ins("OR", "bo", 3L)));
    top.onBarrier(h.barrier(), c -> { });
    assertThat(run(open(h), chunk(people, ins("OR", "bo", 5L), ins(null, "al", 6L), ins("OR", "carl", 7L))))
        .isEqualTo(texts(ins("OR", "bo", 5L), del(null, "ann", 2L), ins(null, "al", 6L)));

    PlanBuilder d = new PlanBuilder("d");
    d.source("nexmark", "bid", OPTS).project(List.of(new PlanBuilder.Named(Ex.col("auction"), "auction"),
        new PlanBuilder.Named(Ex.mul(Ex.lit(0.5), Ex.col("price")), "half"), new PlanBuilder.Named(Ex.col("_row_id"), "_row_id")))
        .groupBy("auction").maxRows("half").materialize("d");
    Harness hd = new Harness(d.build());
    DataType[] halves = {DataType.BIGINT, DataType.DOUBLE, DataType.BIGINT};
    GroupTopOp dt = open(hd);
    assertThat(run(dt, chunk(halves, ins(1L, -0.5, 1L), ins(1L, 0.0, 2L))))
        .isEqualTo(texts(ins(1L, -0.5, 1L), del(1L, -0.5, 1L), ins(1L, 0.0, 2L)));
    dt.onBarrier(hd.barrier(), c -> { });
    assertThat(run(open(hd), chunk(halves, ins(1L, -0.0, 3L), ins(1L, -2.0, 4L)))).isEqualTo(texts(ins(1L, -0.0, 3L)));
  }

  @Test
  void refusesARetraction() {
    Harness h = harness(true);
    GroupTopOp top = open(h);
    assertThatThrownBy(() -> run(top, chunk(THREE_LONGS, del(1L, 5L, 1L))))
        .isInstanceOf(IllegalStateException.class).hasMessageContaining("append-only");
  }
}
