package dev.tide.stream.actor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tide.common.hash.VnodeBitmap;
import dev.tide.common.time.ManualClock;
import dev.tide.proto.stream.DispatcherInfo;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

/** Listener, wiring and a running actor for tests that run one actor by hand. */
final class TestActors {
  private TestActors() {}

  /** An actor on its own thread; {@link #close} stops it and fails the test if the actor failed. */
  static final class Running implements AutoCloseable {
    private final Actor actor;
    private final Thread thread;
    private final List<Throwable> failures;

    private Running(Actor actor, List<Throwable> failures) {
      this.actor = actor;
      this.failures = failures;
      this.thread = new Thread(actor, "actor-" + actor.actorId());
      thread.start();
    }

    @Override
    public void close() throws InterruptedException {
      actor.stop();
      thread.join();
      assertThat(failures).isEmpty();
    }
  }

  /**
   * Starts actor 1 of {@code nodes} (its merge leaves read fragment 5 through {@code inputs}, its
   * root writes to {@code out}), never rewired.
   */
  static Running start(List<Actor.Node> nodes, List<Actor.Input> inputs, Channel out) {
    List<Throwable> failures = new CopyOnWriteArrayList<>();
    Actor actor = new Actor(1, nodes, inputs, Map.of(5, 0), -1, null, List.of(new Dispatcher.Single(out)),
        VnodeBitmap.full(16), List.of(), recordingFailures(failures), noRewiring(), new ManualClock(0));
    return new Running(actor, failures);
  }

  /** A listener that records failures and ignores the rest. */
  static Actor.BarrierListener recordingFailures(List<Throwable> failures) {
    return new Actor.BarrierListener() {
      @Override
      public void collected(long actorId, Barrier barrier, ActorLoad load) {}

      @Override
      public void sourceEnded(long actorId) {}

      @Override
      public void failed(long actorId, Throwable error) {
        failures.add(error);
      }
    };
  }

  /** Wiring for an actor that is never rewired (asking for an input or a dispatcher fails the test). */
  static Actor.Wiring noRewiring() {
    return new Actor.Wiring() {
      @Override
      public Channel input(long upActor, long downActor) {
        throw new AssertionError("no rewiring in this test");
      }

      @Override
      public Dispatcher dispatcher(long actorId, DispatcherInfo info) {
        throw new AssertionError("no rewiring in this test");
      }

      @Override
      public void release(long upActor, long downActor) {}

      @Override
      public void waitReadable(long actorId, Barrier barrier) {}
    };
  }

  /**
   * Drains {@code out} into {@code received} until barrier {@code b} is there; returns what came
   * before it, and leaves in {@code received} only what came after it.
   */
  static List<Object> until(Channel out, List<Object> received, Barrier b) {
    await().atMost(Duration.ofSeconds(30)).until(() -> {
      Object m;
      while ((m = out.poll()) != null) {
        received.add(m);
      }
      return received.contains(b);
    });
    int at = received.indexOf(b);
    List<Object> before = new ArrayList<>(received.subList(0, at));
    received.subList(0, at + 1).clear();
    return before;
  }
}
