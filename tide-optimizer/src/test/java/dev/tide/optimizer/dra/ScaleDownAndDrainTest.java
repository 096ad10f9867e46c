package dev.tide.optimizer.dra;

import static dev.tide.optimizer.dra.Fixtures.MIN;
import static dev.tide.optimizer.dra.Fixtures.S;
import static dev.tide.optimizer.dra.Fixtures.T0;
import static dev.tide.optimizer.dra.Fixtures.cfg;
import static dev.tide.optimizer.dra.Fixtures.snap;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tide.optimizer.dra.Fixtures.Keeper;
import org.junit.jupiter.api.Test;

/** Idle tracking (spec 17), scale-down (18) and graceful drain (19). */
class ScaleDownAndDrainTest {

  private static Fixtures.Snap threeIdle() {
    return snap().launched("i1", 1, 0).launched("i2", 1, 0).launched("i3", 1, 0);
  }

  @Test
  void idleTrackingMarksBusyAndNewInstancesNowAndForgetsLeftOnes() {
    Keeper k = new Keeper(cfg());
    k.round(snap().launched("a", 1, 0).launched("b", 1, 1).busy(1).build(), T0);
    assertThat(k.state.lastBusyMs()).containsEntry("a", T0).containsEntry("b", T0);
    k.round(snap().launched("a", 1, 0).launched("b", 1, 1).launched("c", 1, 0).busy(1).build(), T0 + 10 * S);
    assertThat(k.state.lastBusyMs()).containsEntry("a", T0).containsEntry("b", T0 + 10 * S).containsEntry("c", T0 + 10 * S);
    k.round(snap().launched("b", 1, 0).launched("c", 1, 0).build(), T0 + 20 * S);
    assertThat(k.state.lastBusyMs()).containsOnlyKeys("b", "c");
  }

  @Test
  void aTaskThatStartedAndEndedBetweenRoundsRestartsTheIdleClock() {
    Keeper k = new Keeper(cfg());
    k.round(snap().launched("a", 1, 0).build(), T0);
    // No round saw a task in flight on "a", but it finished one at T0+4 min.
    ScaleDecision d = k.round(snap().launchedWorkedAt("a", 1, T0 + 4 * MIN).build(), T0 + 5 * MIN);
    assertThat(d.drain()).isEmpty();
    assertThat(k.state.lastBusyMs()).containsEntry("a", T0 + 4 * MIN);
    assertThat(d.nextEvaluationMs()).as("idle timeout counted from the task").isEqualTo(T0 + 9 * MIN);
    assertThat(k.round(snap().launchedWorkedAt("a", 1, T0 + 4 * MIN).build(), T0 + 9 * MIN).drain()).isPresent();
  }

  @Test
  void drainsTheLongestIdleInstanceOnePerRoundWithCooldownAndNeverBelowMin() {
    Keeper k = new Keeper(cfg("dynamic-allocation.min-parallelism", "1"));
    k.round(threeIdle().build(), T0);
    // i1 and i2 worked until T0+10 s; i3 has idled since T0.
    k.round(snap().launched("i1", 1, 1).launched("i2", 1, 1).launched("i3", 1, 0).busy(2).build(), T0 + 10 * S);
    ScaleDecision early = k.round(threeIdle().build(), T0 + 20 * S);
    assertThat(early.drain()).isEmpty();
    assertThat(early.nextEvaluationMs()).as("idle timeout of i3").isEqualTo(T0 + 5 * MIN);
    assertThat(k.round(threeIdle().build(), T0 + 5 * MIN - 1).drain()).isEmpty();

    ScaleDecision first = k.round(threeIdle().build(), T0 + 5 * MIN);
    assertThat(first.drain()).hasValueSatisfying(d -> {
      assertThat(d.instanceId()).isEqualTo("i3");
      assertThat(d.resourceId()).isEqualTo("res-i3");
      assertThat(d.reason()).contains("idle 300000ms ≥ executor-idle-timeout 5min").contains("active threads 3 → 2");
    });
    assertThat(first.state().draining()).containsOnlyKeys("i3");
    assertThat(first.state().scaleDownStarts()).isEqualTo(1);
    assertThat(first.nextEvaluationMs()).as("confirm the drain right after it is marked").isEqualTo(T0 + 5 * MIN);

    // i1 and i2 have idled 5 min at T0+5 min 10 s, but the cooldown runs until T0+6 min.
    ScaleDecision cooling = k.round(snap().launched("i1", 1, 0).launched("i2", 1, 0).launched("i3", 1, 1).busy(1).build(),
        T0 + 5 * MIN + 10 * S);
    assertThat(cooling.drain()).isEmpty();
    assertThat(cooling.summary()).contains("scale-down-cooldown");
    assertThat(cooling.nextEvaluationMs()).isEqualTo(T0 + 6 * MIN);

    // Equally idle: the smaller id goes first. One per round.
    ScaleDecision second = k.round(snap().launched("i1", 1, 0).launched("i2", 1, 0).launched("i3", 1, 1).busy(1).build(),
        T0 + 6 * MIN);
    assertThat(second.drain()).hasValueSatisfying(d -> assertThat(d.instanceId()).isEqualTo("i1"));

    // Active threads are now 1 = min: i2 stays however long it idles.
    for (long t = 7; t <= 30; t++) {
      ScaleDecision d = k.round(snap().launched("i1", 1, 1).launched("i2", 1, 0).launched("i3", 1, 1).busy(2).build(),
          T0 + t * MIN);
      assertThat(d.drain()).as("t=%dmin", t).isEmpty();
    }
  }

  @Test
  void onlyProviderLaunchedInstancesAreCandidates() {
    Keeper k = new Keeper(cfg());
    k.round(snap().manual("hand", 1, 0).launched("pod", 1, 0).build(), T0);
    ScaleDecision d = k.round(snap().manual("hand", 1, 0).launched("pod", 1, 0).build(), T0 + 10 * MIN);
    assertThat(d.drain()).hasValueSatisfying(x -> assertThat(x.instanceId()).isEqualTo("pod"));
    Keeper manualOnly = new Keeper(cfg());
    manualOnly.round(snap().manual("hand", 1, 0).build(), T0);
    assertThat(manualOnly.round(snap().manual("hand", 1, 0).build(), T0 + 10 * MIN).drain()).isEmpty();
  }

  @Test
  void noScaleDownInARoundThatSawDemand() {
    Keeper k = new Keeper(cfg());
    k.round(threeIdle().build(), T0);
    assertThat(k.round(threeIdle().pendingTables(1).planned(1).build(), T0 + 10 * MIN).drain())
        .as("PENDING tables").isEmpty();
    Keeper k2 = new Keeper(cfg("dynamic-allocation.min-parallelism", "4"));
    k2.round(threeIdle().build(), T0);
    assertThat(k2.round(threeIdle().build(), T0 + 10 * MIN).drain()).as("floor deficit").isEmpty();
  }

  @Test
  void drainedInstanceIsRemovedOnceIdleAndForgottenWhenGone() {
    Keeper k = new Keeper(cfg());
    k.round(snap().launched("i1", 2, 0).build(), T0);
    k.round(snap().launched("i1", 2, 0).build(), T0 + 5 * MIN);
    assertThat(k.state.draining()).containsOnlyKeys("i1");
    // A parked poll handed a task out just before the mark: wait for it.
    ScaleDecision busy = k.round(snap().launched("i1", 2, 1).busy(1).build(), T0 + 5 * MIN + 1);
    assertThat(busy.removals()).isEmpty();
    assertThat(busy.nextEvaluationMs()).as("drain-timeout").isEqualTo(T0 + 20 * MIN);
    ScaleDecision idle = k.round(snap().launched("i1", 2, 0).build(), T0 + 7 * MIN);
    assertThat(idle.removals()).singleElement().satisfies(r -> {
      assertThat(r.instanceId()).isEqualTo("i1");
      assertThat(r.resourceId()).isEqualTo("res-i1");
      assertThat(r.forced()).isFalse();
      assertThat(r.attempt()).isEqualTo(1);
    });
    ScaleDecision gone = k.round(snap().build(), T0 + 7 * MIN + 1);
    assertThat(gone.state().draining()).isEmpty();
    assertThat(gone.state().lastBusyMs()).isEmpty();
    assertThat(gone.summary()).contains("drained instance i1 is gone");
  }

  @Test
  void aDrainedInstanceGoneBeforeItsRemovalHasItsResourceReleasedAtOnce() {
    // The compute pool: a drained node left and meta forgot it between two rounds, so no round saw it idle.
    Keeper k = new Keeper(cfg());
    k.round(snap().launched("i1", 2, 0).build(), T0);
    k.round(snap().launched("i1", 2, 1).busy(1).build(), T0 + 5 * MIN);
    k.round(snap().launched("i1", 2, 0).build(), T0 + 10 * MIN);
    assertThat(k.state.draining()).containsOnlyKeys("i1");
    ScaleDecision gone = k.round(snap().build(), T0 + 10 * MIN + 1);
    assertThat(gone.releases()).singleElement().satisfies(r -> {
      assertThat(r.resourceId()).isEqualTo("res-i1");
      assertThat(r.reason()).contains("drained instance i1 is gone");
    });
    assertThat(gone.state().draining()).isEmpty();
    assertThat(gone.state().releases()).extracting(PendingRelease::resourceId, PendingRelease::threads)
        .containsExactly(org.assertj.core.groups.Tuple.tuple("res-i1", 2));
    // A failed release is retried one sustained interval later, and counted against the cap until confirmed.
    ScaleDecision failed = k.round(snap().outcome("res-i1", ProviderOutcome.RELEASE_FAILED).build(), T0 + 10 * MIN + 2);
    assertThat(failed.releases()).isEmpty();
    assertThat(failed.state().releases()).hasSize(1);
    ScaleDecision retried = k.round(snap().build(), failed.nextEvaluationMs());
    assertThat(retried.releases()).singleElement().satisfies(r -> assertThat(r.attempt()).isEqualTo(2));
    ScaleDecision released = k.round(snap().outcome("res-i1", ProviderOutcome.RELEASED).build(), failed.nextEvaluationMs() + 1);
    assertThat(released.state().releases()).isEmpty();
    assertThat(released.state().hasProviderWork()).isFalse();
  }

  @Test
  void drainIsForcedAtDrainTimeout() {
    Keeper k = new Keeper(cfg("dynamic-allocation.drain-timeout", "2min"));
    k.round(snap().launched("i1", 1, 0).build(), T0);
    k.round(snap().launched("i1", 1, 0).build(), T0 + 5 * MIN);
    assertThat(k.round(snap().launched("i1", 1, 1).busy(1).build(), T0 + 7 * MIN - 1).removals()).isEmpty();
    ScaleDecision forced = k.round(snap().launched("i1", 1, 1).busy(1).build(), T0 + 7 * MIN);
    assertThat(forced.removals()).singleElement().satisfies(r -> {
      assertThat(r.forced()).isTrue();
      assertThat(r.reason()).contains("drain-timeout 2min reached with 1 task in flight");
    });
  }

  @Test
  void aFailedReleaseKeepsTheDrainAndIsRetried() {
    Keeper k = new Keeper(cfg());
    k.round(snap().launched("i1", 1, 0).build(), T0);
    k.round(snap().launched("i1", 1, 0).build(), T0 + 5 * MIN);
    ScaleDecision r1 = k.round(snap().launched("i1", 1, 0).build(), T0 + 5 * MIN);
    assertThat(r1.removals()).singleElement().satisfies(r -> assertThat(r.attempt()).isEqualTo(1));
    assertThat(r1.nextEvaluationMs()).isEqualTo(T0 + 5 * MIN + 30 * S);
    // The release failed: the instance is still registered, still draining.
    ScaleDecision r2 = k.round(snap().launched("i1", 1, 0).build(), T0 + 5 * MIN + 30 * S);
    assertThat(r2.removals()).singleElement().satisfies(r -> {
      assertThat(r.attempt()).isEqualTo(2);
      assertThat(r.reason()).contains("retry: release attempt 2");
    });
    assertThat(r2.state().draining()).containsKey("i1");
    assertThat(r2.drain()).as("the draining instance is not drained twice").isEmpty();
  }

  @Test
  void drainingCapacityCountsAsGoneOnBothSides() {
    Keeper k = new Keeper(cfg());
    k.round(snap().launched("a", 2, 0).launched("b", 2, 0).build(), T0);
    k.round(snap().launched("a", 2, 0).launched("b", 2, 0).build(), T0 + 5 * MIN); // drains a
    assertThat(k.state.draining()).containsOnlyKeys("a");
    // a still runs 2 tasks, b runs 2: busy 4 of which 2 are on the draining instance; 1 planned.
    ScaleDecision d = k.round(snap().launched("a", 2, 2).launched("b", 2, 2).busy(4).planned(1).build(), T0 + 6 * MIN);
    assertThat(d.summary()).contains("need 1 thread (busy 2 + serviceable 1 − effective 2)");
    assertThat(GroupMetrics.of(snap().launched("a", 2, 2).launched("b", 2, 2).busy(4).planned(1).build(), d.state(), false,
        T0 + 6 * MIN).effectiveThreads()).isEqualTo(2);
  }
}
