package dev.tide.optimizer.dra;

import static dev.tide.optimizer.dra.Fixtures.S;
import static dev.tide.optimizer.dra.Fixtures.T0;
import static dev.tide.optimizer.dra.Fixtures.cfg;
import static dev.tide.optimizer.dra.Fixtures.snap;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tide.optimizer.dra.Fixtures.Keeper;
import dev.tide.optimizer.group.GroupConfig;
import org.junit.jupiter.api.Test;

/** Ramp and backlog-timer resets (spec 12, 13, 15) and the planning-bound edge trigger (spec 16). */
class ResetRulesTest {

  /** Rounds at T0 and T0+60 s, then adds at +90 and +120 s: ramp 4 afterwards. */
  private static Keeper rampedTo4(Fixtures.Snap s) {
    Keeper k = new Keeper(cfg());
    k.round(s.build(), T0);
    assertThat(k.add(s.build(), T0 + 60 * S)).isEqualTo(1);
    assertThat(k.add(s.build(), T0 + 90 * S)).isEqualTo(2);
    assertThat(k.state.ramp()).isEqualTo(4);
    return k;
  }

  @Test
  void rampResetsWhenItDidNotBind() {
    Keeper k = rampedTo4(snap().busyInstances(1, 1).planned(1000));
    // The backlog shrank: want 2 < ramp 4, so the clamp to the need binds.
    Fixtures.Snap small = snap().busyInstances(1, 1).planned(5); // effective 1 + 3 requested = 4, need 2
    ScaleDecision d = k.round(small.build(), T0 + 120 * S);
    assertThat(d.instancesRequested()).isEqualTo(2);
    assertThat(d.state().ramp()).isEqualTo(1);
  }

  @Test
  void rampDoublesWhenTheWholeStepWasUsedEvenIfNeedEqualsIt() {
    // Seed's Spark semantics: the ramp doubles when the round added exactly `ramp` instances.
    Keeper k = rampedTo4(snap().busyInstances(1, 1).planned(1000));
    Fixtures.Snap exact = snap().busyInstances(1, 1).planned(7); // effective 4, need 1 + 7 − 4 = 4 = ramp
    ScaleDecision d = k.round(exact.build(), T0 + 120 * S);
    assertThat(d.instancesRequested()).isEqualTo(4);
    assertThat(d.state().ramp()).isEqualTo(8);
  }

  @Test
  void rampResetsWhenTheCapBinds() {
    Keeper k = new Keeper(cfg("dynamic-allocation.max-parallelism", "5"));
    Fixtures.Snap s = snap().busyInstances(1, 1).planned(1000);
    k.round(s.build(), T0);
    k.round(s.build(), T0 + 60 * S); // 1, ramp 2
    k.round(s.build(), T0 + 90 * S); // 2, ramp 4; effective 4
    ScaleDecision d = k.round(s.build(), T0 + 120 * S);
    assertThat(d.instancesRequested()).isEqualTo(1);
    assertThat(d.state().ramp()).isEqualTo(1);
  }

  @Test
  void rampAndTimerResetWhenDemandClears() {
    Keeper k = rampedTo4(snap().busyInstances(1, 1).planned(1000));
    ScaleDecision cleared = k.round(snap().busyInstances(1, 1).build(), T0 + 100 * S);
    assertThat(cleared.state().ramp()).isEqualTo(1);
    assertThat(cleared.state().backlog()).isEmpty();
    assertThat(cleared.summary()).contains("no demand: backlog timer and ramp reset");
    // Demand again: a fresh episode waits the full scheduler-backlog-timeout and starts at ramp 1.
    Fixtures.Snap again = snap().busyInstances(1, 1).planned(1000);
    assertThat(k.add(again.build(), T0 + 110 * S)).isZero();
    assertThat(k.last.nextEvaluationMs()).isEqualTo(T0 + 170 * S);
    assertThat(k.add(again.build(), T0 + 169_999)).isZero();
    assertThat(k.add(again.build(), T0 + 170 * S)).isEqualTo(1);
  }

  @Test
  void floorDeficitResetsTimerAndRamp() {
    Keeper k = new Keeper(cfg("dynamic-allocation.min-parallelism", "4"));
    Fixtures.Snap s = snap().busyInstances(4, 1).planned(1000);
    k.round(s.build(), T0);
    k.round(s.build(), T0 + 60 * S); // ramp 2, backlog running
    assertThat(k.state.backlog()).isPresent();
    // All four instances expired: effective = 1 requested < min 4.
    ScaleDecision floor = k.round(snap().planned(1000).build(), T0 + 70 * S);
    assertThat(floor.scaleUp().orElseThrow().kind()).isEqualTo(ScaleUp.Kind.FLOOR);
    assertThat(floor.instancesRequested()).isEqualTo(3);
    assertThat(floor.state().backlog()).isEmpty();
    assertThat(floor.state().ramp()).isEqualTo(1);
    assertThat(floor.summary()).contains("floor deficit resets the backlog timer and the ramp");
  }

  @Test
  void aTrickleDrainedBetweenRoundsNeverAccumulates() {
    Keeper k = new Keeper(cfg());
    Fixtures.Snap demand = snap().busyInstances(2, 1).planned(1);
    Fixtures.Snap drained = snap().busyInstances(2, 1);
    for (long t = 0; t < 600; t += 40) {
      assertThat(k.add(demand.build(), T0 + t * S)).isZero();
      assertThat(k.add(drained.build(), T0 + (t + 20) * S)).isZero();
      assertThat(k.state.backlog()).isEmpty();
    }
  }

  @Test
  void planningBoundWarnsOnceAfterTwoConsecutiveRoundsPerEpisode() {
    Keeper k = new Keeper(cfg("optimizer.max-planning-parallelism", "2"));
    Fixtures.Snap bound = snap().launched("i1", 2, 1).launched("i2", 2, 0).busy(1).pendingTables(4);
    Fixtures.Snap fine = snap().launched("i1", 2, 1).launched("i2", 2, 0).busy(1).planned(1);

    ScaleDecision r1 = k.round(bound.build(), T0);
    assertThat(r1.warnings()).isEmpty();
    assertThat(r1.noChange()).isTrue();
    assertThat(r1.nextEvaluationMs()).as("re-check for the second round").isEqualTo(T0 + 30 * S);
    ScaleDecision r2 = k.round(bound.build(), T0 + 30 * S);
    assertThat(r2.warnings()).singleElement().satisfies(w -> {
      assertThat(w.code()).isEqualTo(Warning.Code.PLANNING_BOUND);
      assertThat(w.message()).contains("optimizer.max-planning-parallelism (now 2)").contains("4 PENDING tables")
          .contains("3 of 4 threads are idle");
    });
    assertThat(r2.noChange()).isTrue();
    for (int i = 3; i <= 6; i++) {
      ScaleDecision later = k.round(bound.build(), T0 + i * 30 * S);
      assertThat(later.warnings()).as("round %d", i).isEmpty();
      assertThat(later.noChange()).isTrue();
    }
    // The episode ends; a new one warns again after two rounds.
    assertThat(k.round(fine.build(), T0 + 300 * S).state().planningBound()).isEqualTo(PlanningBound.NONE);
    assertThat(k.round(bound.build(), T0 + 330 * S).warnings()).isEmpty();
    assertThat(k.round(bound.build(), T0 + 360 * S).warnings()).hasSize(1);
  }

  @Test
  void planningBoundIsNotScaledEvenWhenTheGatePassed() {
    Keeper k = new Keeper(cfg());
    Fixtures.Snap bound = snap().launched("i1", 1, 0).pendingTables(5);
    for (long t = 0; t <= 600; t += 30) {
      ScaleDecision d = k.round(bound.build(), T0 + t * S);
      assertThat(d.noChange()).as("t=%d", t).isTrue();
      assertThat(d.state().backlog()).isEmpty();
    }
  }

  @Test
  void demandCoveredByBootingCapacityIsNoDemandSoTimerAndRampReset() {
    Keeper k = rampedTo4(snap().busyInstances(1, 1).planned(1000)); // 3 threads requested, booting
    // The backlog shrank to what the booting requests cover: busy 1 + planned 3 = effective 1 + 3 requested.
    ScaleDecision covered = k.round(snap().busyInstances(1, 1).planned(3).build(), T0 + 100 * S);
    assertThat(covered.instancesRequested()).isZero();
    assertThat(covered.state().backlog()).isEmpty();
    assertThat(covered.state().ramp()).isEqualTo(1);
    assertThat(covered.summary()).contains("no demand: backlog timer and ramp reset");
    // A later need starts a new scheduler-backlog-timeout gate, at ramp 1.
    Fixtures.Snap more = snap().busyInstances(1, 1).planned(10);
    assertThat(k.add(more.build(), T0 + 120 * S)).isZero();
    assertThat(k.last.nextEvaluationMs()).isEqualTo(T0 + 180 * S);
    assertThat(k.add(more.build(), T0 + 180 * S)).isEqualTo(1);
  }

  @Test
  void aSynchronouslyFailedRequestDoesNotAdvanceTheRamp() {
    Keeper k = new Keeper(cfg());
    Fixtures.Snap demand = snap().busyInstances(1, 1).planned(1000);
    k.round(demand.build(), T0);
    assertThat(k.add(demand.build(), T0 + 60 * S)).isEqualTo(1);
    ScaleDecision two = k.round(demand.build(), T0 + 90 * S);
    assertThat(two.instancesRequested()).isEqualTo(2);
    assertThat(two.state().ramp()).isEqualTo(4);
    for (String rid : two.scaleUp().orElseThrow().resourceIds()) {
      demand.outcome(rid, ProviderOutcome.REQUEST_FAILED);
    }
    ScaleDecision retry = k.round(demand.build(), T0 + 120 * S);
    assertThat(retry.instancesRequested()).as("the same step again").isEqualTo(2);
    assertThat(retry.state().ramp()).isEqualTo(4);
    assertThat(retry.summary()).contains("ramp stays at 2");
  }

  @Test
  void aConfigurationChangeInTheMiddleOfAnEpisodeAppliesFromTheNextRound() {
    GroupSnapshot demand = snap().busyInstances(1, 1).planned(100).build();
    ScaleDecision first = ScaleDecider.decide(demand, KeeperState.initial(), cfg(), T0);
    assertThat(first.nextEvaluationMs()).isEqualTo(T0 + 60 * S);
    GroupConfig shorter = cfg("dynamic-allocation.scheduler-backlog-timeout", "20s",
        "dynamic-allocation.sustained-backlog-timeout", "5s");
    ScaleDecision changed = ScaleDecider.decide(demand, first.state(), shorter, T0 + 10 * S);
    assertThat(changed.instancesRequested()).isZero();
    assertThat(changed.nextEvaluationMs()).as("the new gate, from the episode's start").isEqualTo(T0 + 20 * S);
    ScaleDecision add = ScaleDecider.decide(demand, changed.state(), shorter, T0 + 20 * S);
    assertThat(add.instancesRequested()).isEqualTo(1);
    // And back to a longer spacing: the next add waits the new sustained-backlog-timeout from the last add.
    ScaleDecision longer = ScaleDecider.decide(demand, add.state(), cfg(), T0 + 25 * S);
    assertThat(longer.instancesRequested()).isZero();
    assertThat(longer.nextEvaluationMs()).isEqualTo(T0 + 50 * S);
  }

  @Test
  void aBootingProbeCoversTheColdStartSoTheNextProbeWaitsANewGate() {
    Keeper k = new Keeper(cfg());
    k.round(snap().pendingTables(3).build(), T0);
    String r1 = k.round(snap().pendingTables(3).build(), T0 + 60 * S).scaleUp().orElseThrow().resourceIds().get(0);
    // Effective 1 (the probe, booting) > busy 0: no future demand, the episode ends.
    ScaleDecision booting = k.round(snap().pendingTables(3).build(), T0 + 70 * S);
    assertThat(booting.instancesRequested()).isZero();
    assertThat(booting.state().backlog()).isEmpty();
    // Registered and busy, tables still PENDING: future demand again, behind a new gate.
    Fixtures.Snap busy = snap().launchedAs("p1", 1, 1, r1).busy(1).pendingTables(2);
    assertThat(k.add(busy.build(), T0 + 90 * S)).isZero();
    assertThat(k.last.nextEvaluationMs()).isEqualTo(T0 + 150 * S);
    assertThat(k.add(busy.build(), T0 + 150 * S)).isEqualTo(1);
  }
}
