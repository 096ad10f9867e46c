package dev.tide.stream.operator;

import static dev.tide.stream.operator.Chunks.chunk;
import static dev.tide.stream.operator.Chunks.del;
import static dev.tide.stream.operator.Chunks.ins;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tide.common.chunk.StreamChunk;
import dev.tide.common.types.DataType;
import dev.tide.proto.plan.HashAggNode;
import dev.tide.proto.plan.PlanNode;
import dev.tide.stream.actor.Barrier;
import dev.tide.stream.operator.Chunks.Row;
import dev.tide.stream.plan.Agg;
import dev.tide.stream.plan.PlanBuilder;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;

/**
 * An aggregation that holds its barriers (flushes the epoch's groups in slices while it takes the
 * next epoch's rows, a row of a sealed group flushing that group first) emits, epoch by epoch, the
 * same changes as one that flushes at the barrier, and leaves the same state: over inserts and
 * retractions that empty groups (deleted, then started again) and slices from one group up.
 */
class HeldBarrierAggTest {
  private static final DataType[] THREE_LONGS = {DataType.BIGINT, DataType.BIGINT, DataType.BIGINT};

  /** One operator and what it emitted per epoch. */
  private static final class Run {
    final Harness h;
    final HashAggOp op;
    final List<List<String>> epochs = new ArrayList<>();
    final List<StreamChunk> out = new ArrayList<>();

    Run(int flushSlice) {
      PlanBuilder b = new PlanBuilder("c");
      b.source("nexmark", "bid", java.util.Map.of("events", "10")).project("auction", "price", "_row_id")
          .groupBy("auction").agg(Agg.count("n"), Agg.sum("price", "total")).materialize("c");
      h = new Harness(b.build());
      op = newOp(h, flushSlice);
      op.open();
    }

    /** Moves what was emitted since the last call into epoch {@code e}'s changes. */
    void collect(int e) {
      while (epochs.size() <= e) {
        epochs.add(new ArrayList<>());
      }
      epochs.get(e).addAll(Chunks.texts(out));
      out.clear();
    }
  }

  static HashAggOp newOp(Harness h, int flushSlice) {
    PlanNode n = h.node(PlanNode.KindCase.HASH_AGG);
    PlanNode one = h.onePhase(n);
    HashAggNode retracting = one.getHashAgg().toBuilder().setAppendOnlyInput(false).build(); // deletes empty groups
    return new HashAggOp(retracting, h.planInputTypes(n, 0), h.context(n), flushSlice);
  }

  @Property(tries = 60)
  void heldBarriersEmitAndStoreWhatFlushingAtTheBarrierDoes(@ForAll long seed) throws InterruptedException {
    Random rnd = new Random(seed);
    int keys = 1 + rnd.nextInt(60);
    int epochs = 2 + rnd.nextInt(5);
    List<List<StreamChunk>> input = new ArrayList<>();
    List<long[]> live = new ArrayList<>(); // rows inserted and not deleted: (auction, price, row id)
    long rowId = 0;
    for (int e = 0; e < epochs; e++) {
      List<StreamChunk> chunks = new ArrayList<>();
      for (int c = rnd.nextInt(5); c >= 0; c--) {
        List<Row> rows = new ArrayList<>();
        for (int r = rnd.nextInt(20); r >= 0; r--) {
          if (!live.isEmpty() && rnd.nextInt(3) == 0) {
            long[] gone = live.remove(rnd.nextInt(live.size()));
            rows.add(del(gone[0], gone[1], gone[2]));
          } else {
            long[] row = {rnd.nextInt(keys), rnd.nextInt(100), rowId++};
            live.add(row);
            rows.add(ins(row[0], row[1], row[2]));
          }
        }
        chunks.add(chunk(THREE_LONGS, rows.toArray(Row[]::new)));
      }
      input.add(chunks);
    }

    Run sync = new Run(HashAggOp.FLUSH_SLICE);
    for (int e = 0; e < epochs; e++) {
      for (StreamChunk c : input.get(e)) {
        sync.op.process(0, c, sync.out::add);
      }
      sync.op.onBarrier(sync.h.barrier(), sync.out::add);
      sync.collect(e);
    }

    Run held = new Run(1 + rnd.nextInt(3));
    int heldEpoch = -1; // the epoch whose barrier the operator holds
    for (int e = 0; e < epochs; e++) {
      for (StreamChunk c : input.get(e)) {
        held.op.process(0, c, held.out::add); // may flush a sealed group of the held epoch
        held.collect(heldEpoch >= 0 ? heldEpoch : e);
        if (heldEpoch >= 0 && rnd.nextBoolean()) {
          if (held.op.continueBarrier(held.out::add, false)) {
            held.collect(heldEpoch);
            heldEpoch = -1;
          } else {
            held.collect(heldEpoch);
          }
        }
      }
      if (heldEpoch >= 0) { // the next barrier: the held one completes first, as the actor does
        assertThat(held.op.continueBarrier(held.out::add, true)).isTrue();
        held.collect(heldEpoch);
      }
      Barrier b = held.h.barrier();
      heldEpoch = held.op.beginBarrier(b, held.out::add) ? e : -1;
      held.collect(e);
    }
    if (heldEpoch >= 0) {
      assertThat(held.op.continueBarrier(held.out::add, true)).isTrue();
      held.collect(heldEpoch);
    }

    for (int e = 0; e < epochs; e++) {
      assertThat(held.epochs.get(e)).as("seed %d: changes of epoch %d", seed, e).containsExactlyInAnyOrderElementsOf(sync.epochs.get(e));
    }
    // The state each left: a new operator over each store reads its groups back and counts one more row per key.
    List<Row> probe = new ArrayList<>();
    for (long k = 0; k < keys; k++) {
      probe.add(ins(k, 1L, rowId++));
    }
    List<String> after = new ArrayList<>();
    for (Run r : List.of(sync, held)) {
      HashAggOp fresh = newOp(r.h, HashAggOp.FLUSH_SLICE);
      fresh.open();
      List<StreamChunk> out = new ArrayList<>();
      fresh.process(0, chunk(THREE_LONGS, probe.toArray(Row[]::new)), out::add);
      fresh.onBarrier(r.h.barrier(), out::add);
      List<String> texts = new ArrayList<>(Chunks.texts(out));
      texts.sort(null);
      after.add(String.join("\n", texts));
    }
    assertThat(after.get(1)).as("seed %d: state after", seed).isEqualTo(after.get(0));
  }
}
