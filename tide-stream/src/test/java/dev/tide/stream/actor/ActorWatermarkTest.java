package dev.tide.stream.actor;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tide.proto.stream.Mutation;
import dev.tide.proto.stream.Update;
import dev.tide.stream.operator.MergeOp;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * An actor hands its merge the least watermark of its inputs, once every input has made one and
 * only when it rises; a reschedule barrier forgets the inputs' watermarks (an upstream source that
 * gained splits may emit rows below its earlier promise), and what was handed on never falls and is
 * said again after the barrier.
 */
class ActorWatermarkTest {
  private final Channel in1 = new Channel(16);
  private final Channel in2 = new Channel(16);
  private final Channel out = new Channel(64);
  private TestActors.Running actor;

  private void start() {
    actor = TestActors.start(List.of(new Actor.Node(new MergeOp(), -1, 0)),
        List.of(new Actor.Input(in1, 0, 11), new Actor.Input(in2, 0, 12)), out);
  }

  @AfterEach
  void stop() throws InterruptedException {
    actor.close();
  }

  /** What the actor put out after the last barrier {@link #throughBarrier} returned at. */
  private final List<Object> received = new ArrayList<>();

  /** Sends a barrier through both inputs and waits for the actor to pass it on; returns what came out before it. */
  private List<Object> throughBarrier(Barrier b) throws InterruptedException {
    in1.send(b);
    in2.send(b);
    return TestActors.until(out, received, b);
  }

  @Test
  void theLeastOfTheInputsGoesOnOnceAllHaveOneAndOnlyWhenItRises() throws InterruptedException {
    start();
    in1.send(new Watermark(0, 100));
    in2.send(new Watermark(0, 50));
    in2.send(new Watermark(0, 200));
    in1.send(new Watermark(0, 90)); // below its input's 100: changes nothing
    in1.send(new Watermark(3, 7)); // another column: in2 has none there yet
    in1.send(new Watermark(0, 300));
    assertThat(throughBarrier(new Barrier(2, 1, null, 0)))
        .containsExactly(new Watermark(0, 50), new Watermark(0, 100), new Watermark(0, 200));
  }

  @Test
  void aRescheduleBarrierForgetsTheInputsWatermarksAndWhatWentOnNeverFalls() throws InterruptedException {
    start();
    in1.send(new Watermark(0, 300));
    in2.send(new Watermark(0, 250));
    Mutation reschedule = Mutation.newBuilder().setUpdate(Update.newBuilder().setJobId(1).addDroppedActorIds(99)).build();
    assertThat(throughBarrier(new Barrier(2, 1, reschedule, 0))).containsExactly(new Watermark(0, 250));

    in2.send(new Watermark(0, 400)); // in1's 300 came before the barrier and no longer counts
    assertThat(throughBarrier(new Barrier(3, 2, null, 0)))
        .as("what went on before the reschedule is said again after it, for actors that forgot it")
        .containsExactly(new Watermark(0, 250));
    in1.send(new Watermark(0, 200)); // the least again, but below what went on
    in1.send(new Watermark(0, 350));
    assertThat(throughBarrier(new Barrier(4, 3, null, 0))).containsExactly(new Watermark(0, 350));
  }
}
