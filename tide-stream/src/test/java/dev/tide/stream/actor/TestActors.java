package dev.tide.stream.actor;

import static org.awaitility.Awaitility.await;

import dev.tide.proto.stream.DispatcherInfo;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/** Listener and wiring for tests that run one actor by hand. */
final class TestActors {
  private TestActors() {}

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
