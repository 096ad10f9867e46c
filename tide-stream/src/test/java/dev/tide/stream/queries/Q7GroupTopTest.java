package dev.tide.stream.queries;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tide.common.chunk.ChunkBuilder;
import dev.tide.common.chunk.Op;
import dev.tide.common.chunk.StreamChunk;
import dev.tide.common.hash.VnodeBitmap;
import dev.tide.common.hash.VnodeHasher;
import dev.tide.common.time.ManualClock;
import dev.tide.proto.plan.Fragment;
import dev.tide.proto.plan.FragmentEdge;
import dev.tide.proto.plan.PlanNode;
import dev.tide.proto.plan.TableCatalog;
import dev.tide.stream.actor.Barrier;
import dev.tide.stream.actor.Operator;
import dev.tide.stream.nexmark.NexmarkConfig;
import dev.tide.stream.nexmark.NexmarkGenerator;
import dev.tide.stream.nexmark.NexmarkReference;
import dev.tide.stream.nexmark.NexmarkTable;
import dev.tide.stream.operator.ActorContext;
import dev.tide.stream.operator.GroupTopOp;
import dev.tide.stream.operator.Harness;
import dev.tide.stream.operator.MaterializeOp;
import dev.tide.stream.operator.ProjectOp;
import dev.tide.stream.operator.TopFilterOp;
import dev.tide.stream.operator.WindowOp;
import dev.tide.stream.plan.Types;
import dev.tide.stream.state.StateTable;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/**
 * q7 run operator by operator as its compiled job places them (two source actors, each with its top
 * filter, hashed into two group-top actors), through a crash in the middle of an epoch (every actor
 * rebuilt, the epoch replayed) and a vnode move between the group-top actors at a barrier: the
 * changelog retracts only rows it emitted, and the view and the changelog's net rows both equal
 * the highest bids computed directly from the events.
 */
class Q7GroupTopTest {
  private static final long EVENTS = 20_000;
  private static final long EVENT_TIME_RATE = 200; // 100 s of event time: ten windows
  private static final int CHUNK_ROWS = 200;
  private static final int CHUNKS_PER_EPOCH = 5;
  private static final int CRASH_AFTER_BARRIER_AT = 30; // chunk index; the crash comes 3 chunks later
  private static final int RESCALE_AT = 55;

  private final Harness h = new Harness(NexmarkPlans.plan("q7", Map.of("events", String.valueOf(EVENTS))));
  private final Fragment source = fragment(PlanNode.KindCase.SOURCE);
  private final Fragment top = fragment(PlanNode.KindCase.GROUP_TOP);
  private final int[] distKey = Types.ints(edgeInto(top).getDistKeyList());
  private final int vnodeCount = h.job.getVnodeCount();

  private Fragment fragment(PlanNode.KindCase kind) {
    return h.job.getFragmentsList().stream().filter(f -> f.getNodesList().stream().anyMatch(n -> n.getKindCase() == kind))
        .findFirst().orElseThrow();
  }

  private FragmentEdge edgeInto(Fragment f) {
    return h.job.getEdgesList().stream().filter(e -> e.getDownstreamFragmentId() == f.getFragmentId()).findFirst().orElseThrow();
  }

  /** A source actor's operators after its source: project, tumble, top filter. */
  private List<Operator> sourceChain() {
    List<Operator> ops = new ArrayList<>();
    for (PlanNode n : source.getNodesList()) {
      switch (n.getKindCase()) {
        case SOURCE -> { }
        case PROJECT -> ops.add(new ProjectOp(n.getProject().getExprsList()));
        case WINDOW -> ops.add(new WindowOp(n.getWindow(), n.getSchemaCount() - 2));
        case TOP_FILTER -> ops.add(new TopFilterOp(n.getTopFilter(), Types.types(n.getSchemaList())));
        default -> throw new AssertionError("unexpected " + n.getKindCase() + " in q7's source fragment");
      }
    }
    return ops;
  }

  /** A group-top actor's operators after its merge: group top, project, materialize. */
  private List<Operator> topChain(long actorId, VnodeBitmap vnodes) {
    ActorContext ctx = new ActorContext(actorId, h.job.getJobId(), vnodeCount, vnodes, List.of(), tables(), h.store, new ManualClock(0));
    List<Operator> ops = new ArrayList<>();
    for (PlanNode n : top.getNodesList()) {
      switch (n.getKindCase()) {
        case MERGE -> { }
        case GROUP_TOP -> ops.add(new GroupTopOp(n.getGroupTop(), Types.types(n.getSchemaList()), ctx));
        case PROJECT -> ops.add(new ProjectOp(n.getProject().getExprsList()));
        case MATERIALIZE -> ops.add(new MaterializeOp(n.getMaterialize().getTableId(), ctx));
        default -> throw new AssertionError("unexpected " + n.getKindCase() + " in q7's group-top fragment");
      }
    }
    ops.forEach(Operator::open);
    return ops;
  }

  private Map<Integer, TableCatalog> tables() {
    Map<Integer, TableCatalog> t = new TreeMap<>();
    h.job.getTablesList().forEach(c -> t.put(c.getTableId(), c));
    return t;
  }

  private static List<StreamChunk> through(List<Operator> chain, StreamChunk in) throws InterruptedException {
    List<StreamChunk> chunks = List.of(in);
    for (Operator op : chain) {
      List<StreamChunk> out = new ArrayList<>();
      for (StreamChunk c : chunks) {
        op.process(0, c, out::add);
      }
      chunks = out;
    }
    return chunks;
  }

  /** Every actor of the job; rebuilt from scratch, as by a recovery. */
  private final class Actors {
    final List<List<Operator>> sources = List.of(sourceChain(), sourceChain());
    final VnodeBitmap[] vnodes;
    final List<List<Operator>> tops = new ArrayList<>();

    Actors(VnodeBitmap[] vnodes) {
      this.vnodes = vnodes.clone();
      for (int a = 0; a < vnodes.length; a++) {
        tops.add(topChain(a + 1, vnodes[a]));
      }
    }

    /** The view's changelog for one input chunk read by source actor {@code split}. */
    List<StreamChunk> process(StreamChunk bids, int split) throws InterruptedException {
      List<StreamChunk> out = new ArrayList<>();
      for (StreamChunk c : through(sources.get(split), bids)) {
        int[] rowVnodes = new VnodeHasher().vnodes(c, distKey, vnodeCount, null);
        for (int a = 0; a < tops.size(); a++) {
          int actor = a;
          int[] rows = IntStream.range(0, c.size()).filter(i -> c.visible(i) && vnodes[actor].contains(rowVnodes[i])).toArray();
          if (rows.length > 0) {
            out.addAll(through(tops.get(a), c.gather(rows, rows.length)));
          }
        }
      }
      return out;
    }

    void barrier() throws InterruptedException {
      Barrier b = h.barrier();
      for (List<Operator> chain : sources) {
        for (Operator op : chain) {
          op.onBarrier(b, c -> { });
        }
      }
      for (List<Operator> chain : tops) {
        for (Operator op : chain) {
          op.onBarrier(b, c -> { throw new AssertionError("group top emits nothing at a barrier"); });
        }
      }
    }

    void moveVnodes(VnodeBitmap[] next) {
      for (int a = 0; a < tops.size(); a++) {
        for (Operator op : tops.get(a)) {
          op.updateVnodes(vnodes[a], next[a]);
        }
        vnodes[a] = next[a];
      }
    }
  }

  private VnodeBitmap range(int from, int to) {
    return VnodeBitmap.of(vnodeCount, IntStream.range(from, to).toArray());
  }

  @Test
  void viewAndChangelogEqualTheHighestBidsThroughACrashAndAVnodeMove() throws InterruptedException {
    NexmarkConfig cfg = NexmarkConfig.defaults().withSeed(7).withEventsPerSecond(EVENT_TIME_RATE);
    NexmarkGenerator gen = new NexmarkGenerator(cfg);
    // Every third bid is followed by a copy with its price and time (a new row id), so windows have ties.
    List<Object[]> bids = new ArrayList<>();
    for (long i = 0; i < NexmarkGenerator.ordinalsBelow(NexmarkTable.BID, EVENTS); i++) {
      Object[] bid = gen.row(NexmarkTable.BID, i);
      bids.add(bid);
      if (i % 3 == 0) {
        Object[] copy = bid.clone();
        copy[copy.length - 1] = (Long) bid[bid.length - 1] + 1_000_000_000L;
        bids.add(copy);
      }
    }
    // The compiled source emits only the bid columns q7 reads, in the order its node lists them.
    PlanNode sourceNode = source.getNodesList().stream().filter(PlanNode::hasSource).findFirst().orElseThrow();
    int[] emitted = Types.ints(sourceNode.getSource().getColumnsList());
    List<StreamChunk> chunks = new ArrayList<>();
    for (int from = 0; from < bids.size(); from += CHUNK_ROWS) {
      ChunkBuilder b = new ChunkBuilder(Types.types(sourceNode.getSchemaList()), CHUNK_ROWS + 1);
      bids.subList(from, Math.min(bids.size(), from + CHUNK_ROWS))
          .forEach(r -> b.appendRow(Op.INSERT.code(), Arrays.stream(emitted).mapToObj(c -> r[c]).toArray()));
      chunks.add(b.take());
    }

    VnodeBitmap[] vnodes = {range(0, vnodeCount / 2), range(vnodeCount / 2, vnodeCount)};
    Actors actors = new Actors(vnodes);
    Map<List<Object>, Integer> netRows = new HashMap<>();
    Map<List<Object>, Integer> committedNetRows = new HashMap<>();
    boolean crashed = false;
    int next = 0;
    while (next < chunks.size()) {
      if (!crashed && next == CRASH_AFTER_BARRIER_AT + 3) {
        crashed = true;
        actors = new Actors(actors.vnodes);
        netRows = new HashMap<>(committedNetRows);
        next = CRASH_AFTER_BARRIER_AT;
        continue;
      }
      for (StreamChunk c : actors.process(chunks.get(next), next % 2)) {
        for (int i = 0; i < c.size(); i++) {
          List<Object> row = Arrays.asList(c.row(i));
          boolean insert = c.op(i) == Op.INSERT.code();
          assertThat(insert || c.op(i) == Op.DELETE.code()).as("op %s", Op.of(c.op(i))).isTrue();
          int count = netRows.merge(row, insert ? 1 : -1, Integer::sum);
          assertThat(count).as("%s %s", Op.of(c.op(i)), row).isBetween(0, 1);
          if (count == 0) {
            netRows.remove(row);
          }
        }
      }
      next++;
      if (next % CHUNKS_PER_EPOCH == 0 || next == chunks.size()) {
        actors.barrier();
        committedNetRows = new HashMap<>(netRows);
        if (next == RESCALE_AT) {
          int q = vnodeCount / 4;
          actors.moveVnodes(new VnodeBitmap[] {range(0, q).or(range(2 * q, 3 * q)), range(q, 2 * q).or(range(3 * q, 4 * q))});
        }
      }
    }
    assertThat(crashed).isTrue();

    List<List<Object>> expected = NexmarkReference.q7(bids, NexmarkPlans.TUMBLE.toMillis());
    long windows = expected.stream().map(r -> Math.floorDiv((Long) r.get(3), NexmarkPlans.TUMBLE.toMillis())).distinct().count();
    assertThat(windows).isGreaterThanOrEqualTo(8);
    assertThat(expected.size()).as("some window's highest bid is tied").isGreaterThan((int) windows);
    TableCatalog view = h.job.getTablesList().stream().filter(TableCatalog::getIsMv).findFirst().orElseThrow();
    List<List<Object>> viewRows = new ArrayList<>();
    for (Object[] r : StateTable.scanAll(h.store, view)) {
      viewRows.add(Arrays.asList(Arrays.copyOf(r, view.getVisibleColumns())));
    }
    assertThat(NexmarkReference.sorted(viewRows)).isEqualTo(expected);
    List<List<Object>> changelogRows = new ArrayList<>();
    netRows.keySet().forEach(r -> changelogRows.add(r.subList(0, view.getVisibleColumns())));
    assertThat(NexmarkReference.sorted(changelogRows)).isEqualTo(expected);
  }
}
