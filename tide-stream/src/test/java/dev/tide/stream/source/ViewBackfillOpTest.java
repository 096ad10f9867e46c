package dev.tide.stream.source;

import static dev.tide.stream.operator.Chunks.chunk;
import static dev.tide.stream.operator.Chunks.ins;
import static dev.tide.stream.operator.Chunks.ud;
import static dev.tide.stream.operator.Chunks.ui;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tide.common.chunk.Op;
import dev.tide.common.chunk.StreamChunk;
import dev.tide.common.hash.VnodeBitmap;
import dev.tide.common.store.VersionDeltas;
import dev.tide.common.time.ManualClock;
import dev.tide.common.types.DataType;
import dev.tide.common.types.Field;
import dev.tide.common.types.Schema;
import dev.tide.proto.plan.JobDefinition;
import dev.tide.proto.plan.MaterializeNode;
import dev.tide.proto.plan.PlanNode;
import dev.tide.proto.plan.SourceNode;
import dev.tide.proto.plan.TableCatalog;
import dev.tide.proto.stream.Mutation;
import dev.tide.proto.stream.Pause;
import dev.tide.proto.stream.Resume;
import dev.tide.storage.StateStore;
import dev.tide.storage.sst.BlockCache;
import dev.tide.stream.actor.Barrier;
import dev.tide.stream.operator.ActorContext;
import dev.tide.stream.operator.MaterializeOp;
import dev.tide.stream.plan.JobCompiler;
import dev.tide.stream.plan.PlanBuilder;
import dev.tide.stream.state.Changelog;
import dev.tide.stream.state.MemoryObjectStore;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/**
 * A view's changelog and the source that follows it, over one state store: the snapshot, then the
 * committed changes up to the barrier's committed epoch and never past it, nothing twice after a
 * restart from the saved offsets, nothing while paused; a trim keeps the retained epochs and a
 * follower that needs trimmed ones fails instead of missing them.
 */
class ViewBackfillOpTest {
  static final DataType[] TYPES = {DataType.BIGINT, DataType.BIGINT};
  final AtomicLong sstIds = new AtomicLong();
  final StateStore store = new StateStore(new MemoryObjectStore(), new BlockCache(1 << 20), "state", sstIds::incrementAndGet);
  final JobDefinition up;
  final JobDefinition down;

  ViewBackfillOpTest() {
    PlanBuilder u = new PlanBuilder("up").withChangelogs();
    u.table("t", Schema.of(new Field("k", DataType.BIGINT), new Field("v", DataType.BIGINT)), new int[] {0}).materialize("t");
    up = JobCompiler.compile(u.build(), 1, 16, 1000);
    MaterializeNode m = node(up, PlanNode.KindCase.MATERIALIZE).getMaterialize();
    TableCatalog view = up.getTablesList().stream().filter(TableCatalog::getIsMv).findFirst().orElseThrow();
    PlanBuilder d = new PlanBuilder("down");
    d.view(view, 1, 16, m.getChangelogTableId()).materialize("copy");
    down = JobCompiler.compile(d.build(), 2, 16, 2000);
  }

  static PlanNode node(JobDefinition job, PlanNode.KindCase kind) {
    return job.getFragmentsList().stream().flatMap(f -> f.getNodesList().stream()).filter(n -> n.getKindCase() == kind).findFirst()
        .orElseThrow();
  }

  ActorContext context(JobDefinition job, List<Integer> splits) {
    Map<Integer, TableCatalog> tables = new TreeMap<>();
    job.getTablesList().forEach(t -> tables.put(t.getTableId(), t));
    return new ActorContext(1, job.getJobId(), 16, VnodeBitmap.full(16), splits, tables, store, new ManualClock(0));
  }

  /** Syncs and commits every write up to {@code epoch}, as meta's checkpoint would. */
  void commit(long epoch) {
    var ssts = store.sync(epoch);
    var cur = store.committedVersion();
    store.commit(VersionDeltas.apply(cur, VersionDeltas.checkpoint(cur, epoch, ssts)));
  }

  ViewBackfillOp follower() {
    SourceNode src = node(down, PlanNode.KindCase.SOURCE).getSource();
    assertThat(src.getSplitCount()).isEqualTo(16);
    ViewBackfillOp op = new ViewBackfillOp(src, context(down, IntStream.range(0, 16).boxed().toList()));
    op.open();
    return op;
  }

  /** Every row the follower emits now, as "op k v". */
  static List<String> drain(ViewBackfillOp op) {
    List<String> out = new ArrayList<>();
    for (int guard = 0; guard < 1000; guard++) {
      StreamChunk c = op.next(0);
      if (c == null) {
        if (op.nanosUntilReady(0) == Long.MAX_VALUE) {
          break;
        }
        continue;
      }
      for (int i = 0; i < c.size(); i++) {
        out.add(Op.of(c.op(i)) + " " + c.row(i)[0] + " " + c.row(i)[1]);
      }
    }
    out.sort(null);
    return out;
  }

  @Test
  void followsTheSnapshotThenTheCommittedChangesExactlyOnce() throws Exception {
    MaterializeOp mv = new MaterializeOp(node(up, PlanNode.KindCase.MATERIALIZE).getMaterialize().getTableId(),
        node(up, PlanNode.KindCase.MATERIALIZE).getMaterialize().getChangelogTableId(), context(up, List.of()));
    mv.open();
    List<StreamChunk> sink = new ArrayList<>();
    mv.onBarrier(new Barrier(2, 1, null, 0), sink::add);
    mv.process(0, chunk(TYPES, ins(1L, 10L), ins(2L, 20L)), sink::add);
    mv.onBarrier(new Barrier(3, 2, null, 0), sink::add);
    commit(2);

    ViewBackfillOp f = follower();
    f.onBarrier(new Barrier(10, 9, null, 0, 2), sink::add);
    assertThat(drain(f)).containsExactly("INSERT 1 10", "INSERT 2 20");

    // Epoch 3 changes the view; epoch 4's change is not committed when the follower reads.
    mv.process(0, chunk(TYPES, ud(1L, 10L), ui(1L, 11L), ins(3L, 30L)), sink::add);
    mv.onBarrier(new Barrier(4, 3, null, 0), sink::add);
    commit(3);
    mv.process(0, chunk(TYPES, ins(4L, 40L)), sink::add);
    mv.onBarrier(new Barrier(5, 4, null, 0), sink::add);
    f.onBarrier(new Barrier(11, 10, null, 0, 3), sink::add);
    assertThat(drain(f)).containsExactly("DELETE 1 10", "INSERT 1 11", "INSERT 3 30");

    // A follower restarted from the saved offsets (epoch 3) reads only what is newer.
    f.onBarrier(new Barrier(12, 11, null, 0, 3), sink::add); // saves the offsets
    commit(4);
    ViewBackfillOp again = follower();
    again.onBarrier(new Barrier(13, 12, null, 0, 3), sink::add);
    assertThat(drain(again)).isEmpty();
    again.onBarrier(new Barrier(14, 13, null, 0, 4), sink::add);
    assertThat(drain(again)).containsExactly("INSERT 4 40");

    // Paused, it reads nothing; resumed, it catches up.
    mv.process(0, chunk(TYPES, ins(5L, 50L)), sink::add);
    mv.onBarrier(new Barrier(6, 5, null, 0), sink::add);
    commit(5);
    again.onBarrier(new Barrier(15, 14, Mutation.newBuilder().setPause(Pause.newBuilder().addJobIds(2)).build(), 0, 5), sink::add);
    assertThat(drain(again)).isEmpty();
    again.onBarrier(new Barrier(16, 15, Mutation.newBuilder().setResume(Resume.newBuilder().addJobIds(2)).build(), 0, 5), sink::add);
    assertThat(drain(again)).containsExactly("INSERT 5 50");

    // Retention: a trim (here keeping 2 epochs) deletes older entries and leaves a floor marker.
    int changelog = node(up, PlanNode.KindCase.MATERIALIZE).getMaterialize().getChangelogTableId();
    Changelog trimmer = new Changelog(changelog, store, 16, VnodeBitmap.full(16), 2, 1);
    trimmer.onBarrier(6, 7); // trims below epoch 5
    commit(6);
    StateStore.CommittedRead read = store.committedRead();
    for (int v = 0; v < 16; v++) {
      assertThat(Changelog.floor(read, changelog, v)).isEqualTo(5);
      assertThat(Changelog.read(read, changelog, v, 0, 4, TYPES)).isEmpty();
    }
    assertThat(IntStream.range(0, 16).mapToObj(v -> Changelog.read(read, changelog, v, 4, 5, TYPES)).mapToInt(List::size).sum())
        .as("epoch 5 is kept").isEqualTo(1);
    again.onBarrier(new Barrier(17, 16, null, 0, 6), sink::add); // its offsets (5) are at the floor: it goes on
    assertThat(drain(again)).isEmpty();
    f.onBarrier(new Barrier(19, 18, null, 0, 6), sink::add); // f still holds offsets of epoch 3: its changes are gone
    assertThatThrownBy(() -> drain(f)).isInstanceOf(IllegalStateException.class).hasMessageContaining("fell behind its changelog")
        .hasMessageContaining("kept from epoch 5");
  }

  @Test
  void aBarrierInTheMiddleOfASplitsReadFinishesItBeforeTheOffsetsAreSaved() throws Exception {
    MaterializeNode m = node(up, PlanNode.KindCase.MATERIALIZE).getMaterialize();
    MaterializeOp mv = new MaterializeOp(m.getTableId(), m.getChangelogTableId(), context(up, List.of()));
    mv.open();
    List<StreamChunk> sink = new ArrayList<>();
    mv.onBarrier(new Barrier(2, 1, null, 0), sink::add);
    List<dev.tide.stream.operator.Chunks.Row> rows = new ArrayList<>();
    for (long k = 0; k < 20_000; k++) {
      rows.add(ins(k, k * 2));
    }
    mv.process(0, chunk(TYPES, rows), sink::add);
    mv.onBarrier(new Barrier(3, 2, null, 0), sink::add);
    commit(2);

    ViewBackfillOp f = follower();
    f.onBarrier(new Barrier(10, 9, null, 0, 2), sink::add);
    StreamChunk first = f.next(0);
    assertThat(first.size()).as("a vnode's rows stream out a chunk at a time").isEqualTo(StreamChunk.DEFAULT_CAPACITY);
    List<StreamChunk> atBarrier = new ArrayList<>();
    f.onBarrier(new Barrier(11, 10, null, 0, 2), atBarrier::add);
    assertThat(atBarrier).as("the rest of the split's rows, before the barrier").isNotEmpty();
    java.util.Set<Object> keys = new java.util.HashSet<>();
    int n = 0;
    for (StreamChunk c : java.util.stream.Stream.concat(java.util.stream.Stream.of(first), atBarrier.stream()).toList()) {
      for (int i = 0; i < c.size(); i++) {
        keys.add(c.row(i)[0]);
        n++;
      }
    }
    List<String> rest = drain(f);
    assertThat(n + rest.size()).isEqualTo(20_000);
    rest.forEach(r -> keys.add(Long.parseLong(r.split(" ")[1])));
    assertThat(keys).hasSize(20_000);

    // Restarted from what that barrier saved, a follower reads none of it again.
    f.onBarrier(new Barrier(12, 11, null, 0, 2), sink::add);
    ViewBackfillOp again = follower();
    again.onBarrier(new Barrier(13, 12, null, 0, 2), sink::add);
    assertThat(drain(again)).isEmpty();
  }
}
