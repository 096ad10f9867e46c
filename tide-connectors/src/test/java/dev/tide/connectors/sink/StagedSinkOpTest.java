package dev.tide.connectors.sink;

import static dev.tide.stream.operator.Chunks.chunk;
import static dev.tide.stream.operator.Chunks.ins;
import static dev.tide.stream.operator.Chunks.ud;
import static dev.tide.stream.operator.Chunks.ui;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tide.common.store.VersionDeltas;
import dev.tide.common.types.DataType;
import dev.tide.common.types.Schema;
import dev.tide.proto.plan.PlanNode;
import dev.tide.proto.stream.ActorInfo;
import dev.tide.proto.stream.Mutation;
import dev.tide.proto.stream.Update;
import dev.tide.stream.actor.Barrier;
import dev.tide.stream.operator.ActorContext;
import dev.tide.stream.operator.Chunks.Row;
import dev.tide.stream.operator.Harness;
import dev.tide.stream.plan.Agg;
import dev.tide.stream.plan.PlanBuilder;
import dev.tide.stream.plan.Types;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The staged sink's hand-over across reschedules, against a target that records what each identity
 * published and in which order: an actor a reschedule removes publishes nothing after its stop
 * barrier and the fragment's lowest actor publishes its last epochs as it; a key that moves between
 * actors reaches the target in epoch order although the new owner sees its epoch committed at the
 * same barrier as the old owner; an adopter that crashes after publishing writes nothing twice.
 */
class StagedSinkOpTest {
  private static final DataType[] TYPES = {DataType.BIGINT, DataType.BIGINT};

  /** A transactional target: rows applied in order, and per identity the last epoch recorded. */
  static final class Target {
    final List<String> log = new ArrayList<>();
    final Map<String, Long> recorded = new HashMap<>();

    Publisher publisher(long actor) {
      String id = StagedSinkOp.identity(7, 0, actor);
      return new Publisher() {
        @Override
        public long recover() {
          return recorded.getOrDefault(id, -1L);
        }

        @Override
        public void publish(List<StagedRow> rows, long upToEpoch) {
          if (recorded.getOrDefault(id, -1L) >= upToEpoch) {
            return;
          }
          rows.forEach(r -> log.add(r.value()));
          recorded.put(id, upToEpoch);
        }

        @Override
        public void close() {}
      };
    }
  }

  private final Harness h;
  private final PlanNode sink;
  private final Schema schema;
  private final Target target = new Target();

  StagedSinkOpTest() {
    PlanBuilder b = new PlanBuilder("s");
    b.source("nexmark", "bid", Map.of("events", "10")).project("auction", "price", "_row_id").groupBy("auction").agg(Agg.count("n"))
        .sink("kafka", Map.of("bootstrap.servers", "127.0.0.1:9", "topic", "t", "mode", "upsert"));
    h = new Harness(b.build());
    sink = h.node(PlanNode.KindCase.SINK);
    schema = Types.schema(sink.getSchemaList());
  }

  private StagedSinkOp actor(long id, List<Long> fragment) {
    ActorContext all = h.context(sink);
    ActorContext ctx = new ActorContext(id, all.jobId(), all.vnodeCount(), all.vnodes(), List.of(), all.tables(), h.store, all.clock(),
        false, 0, all.alignment(), fragment);
    StagedSinkOp op = new StagedSinkOp(schema, new int[] {0}, sink.getSink().getStateTableId(), ctx, target::publisher);
    op.open();
    return op;
  }

  private static void send(StagedSinkOp op, Row... rows) {
    op.process(0, chunk(TYPES, rows), c -> {});
  }

  private static Barrier barrier(long prev) {
    return new Barrier(prev + 1, prev, null, 0);
  }

  /** A reschedule at the barrier ending {@code prev}: the survivors' fragment becomes {@code fragment}. */
  private Barrier reschedule(long prev, List<Long> fragment, List<Long> survivors, List<Long> dropped) {
    Update.Builder u = Update.newBuilder().setJobId(h.job.getJobId()).addAllDroppedActorIds(dropped);
    survivors.forEach(a -> u.addActors(ActorInfo.newBuilder().setActorId(a).setJobId(h.job.getJobId()).addAllFragmentActorIds(fragment)));
    return new Barrier(prev + 1, prev, Mutation.newBuilder().setUpdate(u).build(), 0);
  }

  /** Syncs and commits every write up to {@code epoch}, as meta's checkpoint would. */
  private void commit(long epoch) {
    var ssts = h.store.sync(epoch);
    var cur = h.store.committedVersion();
    h.store.commit(VersionDeltas.apply(cur, VersionDeltas.checkpoint(cur, epoch, ssts)));
  }

  private static void pass(Barrier b, StagedSinkOp... ops) {
    for (StagedSinkOp op : ops) {
      op.onBarrier(b, c -> {});
    }
  }

  @Test
  void aRemovedActorsLastEpochIsPublishedByTheLowestActorAsTheRemovedOne() {
    StagedSinkOp one = actor(1, List.of(1L, 2L));
    StagedSinkOp two = actor(2, List.of(1L, 2L));
    send(one, ins(10L, 1L));
    send(two, ins(20L, 1L));
    pass(barrier(1), one, two);
    commit(1);
    send(two, ud(20L, 1L), ui(20L, 2L));
    pass(reschedule(2, List.of(1L), List.of(1L), List.of(2L)), one, two); // 2 -> 1: actor 2 leaves
    two.close();
    assertThat(target.log).containsExactlyInAnyOrder("{\"auction\":10,\"n\":1}", "{\"auction\":20,\"n\":1}");
    commit(2);

    send(one, ud(20L, 2L), ui(20L, 3L)); // auction 20 is actor 1's now
    pass(barrier(3), one);
    commit(3);
    pass(barrier(4), one);

    assertThat(target.log.subList(2, target.log.size())).as("actor 2's last epoch, then actor 1's change of the moved key")
        .containsExactly("{\"auction\":20,\"n\":1}", "{\"auction\":20,\"n\":2}", "{\"auction\":20,\"n\":2}", "{\"auction\":20,\"n\":3}");
    assertThat(target.recorded).containsEntry(StagedSinkOp.identity(7, 0, 2), 2L).containsEntry(StagedSinkOp.identity(7, 0, 1), 3L);
    assertThat(one.handingOver()).isFalse();
  }

  @Test
  void aMovedKeyReachesTheTargetInEpochOrderWhenBothOwnersSeeTheCommitAtOnce() {
    StagedSinkOp s = actor(1, List.of(1L, 2L));
    StagedSinkOp n = actor(2, List.of(1L, 2L));
    pass(barrier(1), s, n);
    commit(1);
    send(s, ins(30L, 1L)); // epoch 2: key 30 on actor 1
    pass(barrier(2), s, n);
    pass(reschedule(3, List.of(1L, 2L), List.of(1L, 2L), List.of()), s, n); // key 30 moves to actor 2
    send(n, ud(30L, 1L), ui(30L, 2L)); // epoch 4: key 30 on actor 2
    pass(barrier(4), s, n);
    commit(2);
    commit(3);
    commit(4);
    pass(barrier(5), n, s); // the new owner first: it must not publish epoch 4 before epoch 2 of the old owner
    commit(5);
    pass(barrier(6), n, s);

    assertThat(target.log).containsExactly("{\"auction\":30,\"n\":1}", "{\"auction\":30,\"n\":1}", "{\"auction\":30,\"n\":2}");
    assertThat(s.handingOver()).isFalse();
    assertThat(n.handingOver()).isFalse();
  }

  @Test
  void anAdopterThatCrashesAfterPublishingWritesNothingTwice() {
    StagedSinkOp one = actor(1, List.of(1L, 2L));
    StagedSinkOp two = actor(2, List.of(1L, 2L));
    pass(barrier(1), one, two);
    commit(1);
    send(two, ins(20L, 1L));
    pass(reschedule(2, List.of(1L), List.of(1L), List.of(2L)), one, two);
    two.close();
    commit(2);
    pass(barrier(3), one); // adopts actor 2's epoch 2 and deletes it in epoch 3, which never commits
    assertThat(target.log).containsExactly("{\"auction\":20,\"n\":1}");
    one.close();
    h.store.reset(h.store.committedVersion());

    StagedSinkOp again = actor(1, List.of(1L));
    pass(barrier(3), again);
    commit(3);
    pass(barrier(4), again);
    assertThat(target.log).as("the orphan's rows were read again and found recorded").containsExactly("{\"auction\":20,\"n\":1}");
    assertThat(again.handingOver()).isFalse();
  }
}
