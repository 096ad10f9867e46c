package dev.tide.stream.actor;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tide.common.chunk.StreamChunk;
import dev.tide.common.types.DataType;
import dev.tide.proto.stream.Mutation;
import dev.tide.proto.stream.Update;
import dev.tide.stream.operator.Chunks;
import dev.tide.stream.operator.MergeOp;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * An operator that holds a barrier: the actor goes on reading the next epoch's input into it, and
 * passes the barrier on (after everything the operator emitted for its epoch) only once the held
 * work is done; the next barrier completes a held one first; the actor's first barrier and a
 * barrier with a mutation are never held.
 */
class ActorHeldBarrierTest {
  private static final DataType[] ONE_LONG = {DataType.BIGINT};
  private final Channel in = new Channel(64);
  private final Channel out = new Channel(256);
  private final HoldingOp op = new HoldingOp();
  private TestActors.Running actor;

  /**
   * Emits, per barrier, one row per epoch input row (its value + 1000 × epoch); holds the barrier,
   * emitting one of them per continuation, until it has emitted them all and been handed {@link
   * #readBeforeDone} rows of the next epoch (once; or until asked for all); records what it was handed while holding.
   */
  static final class HoldingOp implements Operator {
    final List<Long> pending = new ArrayList<>();
    final List<Long> readWhileHeld = new CopyOnWriteArrayList<>();
    final AtomicInteger held = new AtomicInteger();
    volatile int readBeforeDone;
    private List<Long> flushing;
    private long epoch;

    @Override
    public void process(int side, StreamChunk chunk, Emitter out) {
      for (int i = 0; i < chunk.size(); i++) {
        long v = (Long) chunk.row(i)[0];
        pending.add(v);
        if (flushing != null) {
          readWhileHeld.add(v);
        }
      }
    }

    @Override
    public void onBarrier(Barrier barrier, Emitter out) throws InterruptedException {
      for (long v : pending) {
        out.emit(row(v + 1000 * barrier.prevEpoch()));
      }
      pending.clear();
    }

    @Override
    public boolean beginBarrier(Barrier barrier, Emitter out) {
      held.incrementAndGet();
      flushing = new ArrayList<>(pending);
      pending.clear();
      epoch = barrier.prevEpoch();
      return true;
    }

    @Override
    public boolean continueBarrier(Emitter out, boolean all) throws InterruptedException {
      while (!flushing.isEmpty()) {
        out.emit(row(flushing.remove(0) + 1000 * epoch));
        if (!all) {
          break;
        }
      }
      return (all || (flushing.isEmpty() && readWhileHeld.size() >= readBeforeDone)) && done();
    }

    private boolean done() {
      flushing = null;
      readBeforeDone = 0; // for the one hold it was set for
      return true;
    }
  }

  private static StreamChunk row(long v) {
    return Chunks.chunk(ONE_LONG, Chunks.ins(v));
  }

  private void start() {
    actor = TestActors.start(List.of(new Actor.Node(new MergeOp(), 1, 0), new Actor.Node(op, -1, 0)),
        List.of(new Actor.Input(in, 0, 11)), out);
  }

  @AfterEach
  void stop() throws InterruptedException {
    actor.close();
  }

  private final List<Object> received = new ArrayList<>();

  /** Waits for {@code b} at the output; returns the values of the rows before it (since the last call). */
  private List<Long> until(Barrier b) {
    List<Long> rows = new ArrayList<>();
    for (Object m : TestActors.until(out, received, b)) {
      assertThat(m).as("only rows before the barrier").isInstanceOf(StreamChunk.class);
      StreamChunk c = (StreamChunk) m;
      for (int i = 0; i < c.size(); i++) {
        rows.add((Long) c.row(i)[0]);
      }
    }
    return rows;
  }

  @Test
  void theActorReadsOnWhileABarrierIsHeldAndPassesItOnAfterItsEpochsRows() throws InterruptedException {
    start();
    in.send(row(1));
    Barrier first = new Barrier(2, 1, null, 0);
    in.send(first);
    assertThat(until(first)).as("the first barrier is not held").containsExactly(1001L);
    assertThat(op.held.get()).isZero();

    for (long v = 1; v <= 3; v++) {
      in.send(row(v));
    }
    op.readBeforeDone = 3;
    Barrier second = new Barrier(3, 2, null, 0);
    in.send(second);
    for (long v = 4; v <= 6; v++) {
      in.send(row(v)); // the next epoch's rows, read while the second barrier is held
    }
    assertThat(until(second)).containsExactly(2001L, 2002L, 2003L);
    assertThat(op.held.get()).isEqualTo(1);
    assertThat(op.readWhileHeld).as("the next epoch's rows went in before the barrier went out").containsExactly(4L, 5L, 6L);

    Barrier reschedule = new Barrier(4, 3, Mutation.newBuilder().setUpdate(Update.newBuilder().setJobId(1)).build(), 0);
    in.send(reschedule);
    assertThat(until(reschedule)).as("a barrier with a mutation is not held").containsExactly(3004L, 3005L, 3006L);
    assertThat(op.held.get()).isEqualTo(1);
  }

  @Test
  void theNextBarrierCompletesAHeldOneFirst() throws InterruptedException {
    start();
    Barrier first = new Barrier(2, 1, null, 0);
    in.send(first);
    until(first);
    for (long v = 1; v <= 40; v++) {
      in.send(row(v));
    }
    op.readBeforeDone = Integer.MAX_VALUE; // held until the next barrier comes
    Barrier second = new Barrier(3, 2, null, 0);
    Barrier third = new Barrier(4, 3, null, 0);
    in.send(second);
    in.send(row(50));
    in.send(third);
    List<Long> epoch2 = new ArrayList<>();
    for (long v = 1; v <= 40; v++) {
      epoch2.add(2000 + v);
    }
    assertThat(until(second)).containsExactlyElementsOf(epoch2);
    assertThat(until(third)).containsExactly(3050L);
  }
}
