package dev.tide.stream.operator;

import static dev.tide.stream.operator.Chunks.chunk;
import static dev.tide.stream.operator.Chunks.ins;
import static dev.tide.stream.operator.Chunks.visible;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tide.common.chunk.StreamChunk;
import dev.tide.common.hash.VnodeBitmap;
import dev.tide.common.hash.VnodeHasher;
import dev.tide.common.types.DataType;
import dev.tide.proto.plan.PlanNode;
import dev.tide.stream.actor.Barrier;
import dev.tide.stream.operator.Chunks.Row;
import dev.tide.stream.plan.Agg;
import dev.tide.stream.plan.PlanBuilder;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A surviving actor whose vnodes change at a reschedule keeps the cache entries of the vnodes it
 * keeps, drops exactly those of the vnodes it loses, and reads a vnode it gets back from the state
 * another actor left there, never from a stale entry.
 */
class UpdateVnodesTest {
  private static final Map<String, String> OPTS = Map.of("events", "10");
  private static final DataType[] THREE_LONGS = {DataType.BIGINT, DataType.BIGINT, DataType.BIGINT};
  private static final DataType[] TWO_LONGS = {DataType.BIGINT, DataType.BIGINT};
  private static final VnodeHasher HASHER = new VnodeHasher();

  private static int vnodeOf(long key, int vnodes) {
    return HASHER.vnode(new Object[] {key}, vnodes);
  }

  /** Every vnode but those of keys {@code from..to}. */
  private static VnodeBitmap without(int vnodes, long from, long to) {
    BitSet b = new BitSet(vnodes);
    b.set(0, vnodes);
    for (long k = from; k <= to; k++) {
      b.clear(vnodeOf(k, vnodes));
    }
    return VnodeBitmap.ofBits(vnodes, b);
  }

  private static VnodeBitmap complement(VnodeBitmap v) {
    BitSet b = new BitSet(v.vnodeCount());
    b.set(0, v.vnodeCount());
    b.andNot(v.toBitSet());
    return VnodeBitmap.ofBits(v.vnodeCount(), b);
  }

  private static ActorContext on(ActorContext c, long actorId, VnodeBitmap vnodes) {
    return new ActorContext(actorId, c.jobId(), c.vnodeCount(), vnodes, c.splits(), c.tables(), c.store(), c.clock());
  }

  private static List<String> text(List<StreamChunk> out) {
    List<String> rows = out.stream().flatMap(c -> visible(c).stream()).map(UpdateVnodesTest::text).toList();
    out.clear();
    return rows;
  }

  private static String text(Row r) {
    return r.op() + " " + Arrays.toString(r.values());
  }

  private static StreamChunk bids(long fromAuction, long toAuction, long rowIds) {
    List<Row> rows = new ArrayList<>();
    for (long a = fromAuction; a <= toAuction; a++) {
      rows.add(ins(a, 10L, rowIds + a));
    }
    return chunk(THREE_LONGS, rows.toArray(Row[]::new));
  }

  @Test
  void theAggregationKeepsWhatItOwnsAndReadsAReturningVnodeFromState() throws InterruptedException {
    PlanBuilder b = new PlanBuilder("c");
    b.source("nexmark", "bid", OPTS).project("auction", "price", "_row_id").groupBy("auction").agg(Agg.count("n")).materialize("c");
    Harness h = new Harness(b.build());
    PlanNode n = h.node(PlanNode.KindCase.HASH_AGG);
    PlanNode onePhase = h.onePhase(n);
    ActorContext full = h.context(n);
    int vnodes = full.vnodeCount();
    HashAggOp a = new HashAggOp(onePhase.getHashAgg(), h.planInputTypes(n, 0), full);
    a.open();
    List<StreamChunk> out = new ArrayList<>();
    a.process(0, bids(1, 40, 0), out::add);
    a.onBarrier(h.barrier(), out::add);
    out.clear();
    assertThat(a.cachedGroups()).isEqualTo(40);

    VnodeBitmap kept = without(vnodes, 1, 10);
    long keptKeys = java.util.stream.LongStream.rangeClosed(1, 40).filter(k -> kept.contains(vnodeOf(k, vnodes))).count();
    a.updateVnodes(full.vnodes(), kept);
    assertThat(a.cachedGroups()).as("entries of the lost vnodes are evicted, the rest stay").isEqualTo((int) keptKeys);

    // Another actor owns the lost vnodes for a while and counts auction 1 once more.
    HashAggOp other = new HashAggOp(onePhase.getHashAgg(), h.planInputTypes(n, 0), on(full, 2, complement(kept)));
    other.open();
    other.process(0, bids(1, 1, 100), out::add);
    Barrier barrier = h.barrier();
    other.onBarrier(barrier, out::add);
    assertThat(text(out)).containsExactly("UPDATE_DELETE [1, 1]", "UPDATE_INSERT [1, 2]");

    // The vnodes come back (a change that is no subset): nothing kept is dropped, auction 1 is read afresh.
    a.updateVnodes(kept, full.vnodes());
    assertThat(a.cachedGroups()).isEqualTo((int) keptKeys);
    a.process(0, bids(1, 1, 200), out::add);
    a.onBarrier(h.barrier(), out::add);
    assertThat(text(out)).containsExactly("UPDATE_DELETE [1, 2]", "UPDATE_INSERT [1, 3]");
  }

  @Test
  void theJoinKeepsWhatItOwnsAndReadsAReturningVnodeFromState() throws InterruptedException {
    PlanBuilder b = new PlanBuilder("j");
    PlanBuilder.Stream bids = b.source("nexmark", "bid", OPTS).project("auction", "price", "_row_id");
    PlanBuilder.Stream auctions = b.source("nexmark", "auction", OPTS).project("id", "seller");
    bids.join(auctions, List.of("auction"), List.of("id")).materialize("j");
    Harness h = new Harness(b.build());
    PlanNode n = h.node(PlanNode.KindCase.HASH_JOIN);
    ActorContext full = h.context(n);
    int vnodes = full.vnodeCount();
    HashJoinOp a = new HashJoinOp(n.getHashJoin(), h.inputTypes(n, 0), h.inputTypes(n, 1), full);
    a.open();
    List<StreamChunk> out = new ArrayList<>();
    a.process(0, bids(1, 40, 0), out::add); // bids before their auctions: stored, and their keys cached
    a.onBarrier(h.barrier(), out::add);
    int before = a.cachedKeys(0) + a.cachedKeys(1);
    assertThat(before).isPositive();

    VnodeBitmap kept = without(vnodes, 1, 10);
    a.updateVnodes(full.vnodes(), kept);
    int afterLoss = a.cachedKeys(0) + a.cachedKeys(1);
    assertThat(afterLoss).as("entries of the lost vnodes are evicted, the rest stay").isLessThan(before).isPositive();

    // Another actor owns the lost vnodes meanwhile and stores a second bid of auction 1.
    HashJoinOp other = new HashJoinOp(n.getHashJoin(), h.inputTypes(n, 0), h.inputTypes(n, 1), on(full, 2, complement(kept)));
    other.open();
    other.process(0, chunk(THREE_LONGS, ins(1L, 11L, 500L)), out::add);
    other.onBarrier(h.barrier(), out::add);

    a.updateVnodes(kept, full.vnodes());
    assertThat(a.cachedKeys(0) + a.cachedKeys(1)).as("a change that is no subset keeps what is still owned").isEqualTo(afterLoss);
    out.clear();
    a.process(1, chunk(TWO_LONGS, ins(1L, 7L)), out::add); // auction 1 arrives: both of its bids match
    assertThat(text(out)).containsExactlyInAnyOrder("INSERT [1, 10, 1, 1, 7]", "INSERT [1, 11, 500, 1, 7]");
  }
}
