package dev.tide.optimizer.dra;

import static dev.tide.optimizer.dra.Fixtures.S;
import static dev.tide.optimizer.dra.Fixtures.T0;
import static dev.tide.optimizer.dra.Fixtures.cfg;
import static dev.tide.optimizer.dra.Fixtures.snap;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tide.optimizer.dra.Fixtures.Keeper;
import org.junit.jupiter.api.Test;

/** The spec's acceptance vectors (scheduler-backlog-timeout 60 s, sustained-backlog-timeout 30 s). */
class AcceptanceVectorsTest {

  @Test
  void floorAddsAllMissingInstancesAtOnceWithoutTimingGate() {
    Keeper k = new Keeper(cfg("dynamic-allocation.min-parallelism", "5", "dynamic-allocation.executor-parallelism", "2"));
    ScaleDecision d = k.round(snap().build(), T0);
    assertThat(d.scaleUp()).hasValueSatisfying(u -> {
      assertThat(u.kind()).isEqualTo(ScaleUp.Kind.FLOOR);
      assertThat(u.instances()).isEqualTo(3);
      assertThat(u.threadsPerInstance()).isEqualTo(2);
      assertThat(u.resourceIds()).hasSize(3).doesNotHaveDuplicates();
    });
    assertThat(d.state().requestedThreads()).isEqualTo(6);
    // The requested instances count: no re-request while they boot.
    assertThat(k.add(snap().build(), T0 + S)).isZero();
  }

  @Test
  void backlogGateOpensAtSixtySecondsNotBefore() {
    Keeper k = new Keeper(cfg());
    Fixtures.Snap s = snap().busyInstances(2, 1).planned(5);
    ScaleDecision first = k.round(s.build(), T0);
    assertThat(first.instancesRequested()).isZero();
    assertThat(first.nextEvaluationMs()).isEqualTo(T0 + 60 * S);
    assertThat(first.nextEvaluationReason()).contains("backlog gate");
    assertThat(k.add(s.build(), T0 + 59_999)).isZero();
    ScaleDecision at60 = k.round(s.build(), T0 + 60 * S);
    assertThat(at60.instancesRequested()).isEqualTo(1);
    assertThat(at60.scaleUp().orElseThrow().kind()).isEqualTo(ScaleUp.Kind.DEMAND);
    assertThat(at60.scaleUp().orElseThrow().reason()).startsWith("scale-up 1 instance: need 5 threads, ramp 1, cap 1022");
  }

  @Test
  void rampDoublesOneTwoFourEightAtSixtyNinetyHundredTwentyHundredFifty() {
    Keeper k = new Keeper(cfg("dynamic-allocation.executor-parallelism", "2"));
    Fixtures.Snap huge = snap().busyInstances(1, 2).planned(100_000);
    assertThat(k.add(huge.build(), T0)).isZero();
    assertThat(k.add(huge.build(), T0 + 30 * S)).isZero();
    assertThat(k.add(huge.build(), T0 + 60 * S)).isEqualTo(1);
    assertThat(k.add(huge.build(), T0 + 75 * S)).as("spaced by sustained-backlog-timeout").isZero();
    assertThat(k.add(huge.build(), T0 + 90 * S)).isEqualTo(2);
    assertThat(k.add(huge.build(), T0 + 120 * S)).isEqualTo(4);
    assertThat(k.add(huge.build(), T0 + 150 * S)).isEqualTo(8);
    assertThat(k.state.ramp()).isEqualTo(16);
    assertThat(k.state.requestedThreads()).isEqualTo(2 * 15);
  }

  @Test
  void capAlwaysWins() {
    var cfg = cfg("dynamic-allocation.max-parallelism", "10", "dynamic-allocation.executor-parallelism", "2");
    Keeper at8 = new Keeper(cfg);
    Fixtures.Snap eight = snap().busyInstances(4, 2).planned(100);
    at8.round(eight.build(), T0);
    assertThat(at8.add(eight.build(), T0 + 60 * S)).isEqualTo(1);

    Keeper at10 = new Keeper(cfg);
    Fixtures.Snap ten = snap().busyInstances(5, 2).planned(100);
    at10.round(ten.build(), T0);
    ScaleDecision d = at10.round(ten.build(), T0 + 60 * S);
    assertThat(d.instancesRequested()).isZero();
    assertThat(d.summary()).contains("at the cap");
    assertThat(d.state().backlog()).as("demand persists at the cap").isPresent();
  }

  @Test
  void oscillationRestartsTheGateSoTheNextAddIsAtHundredFiveSeconds() {
    Keeper k = new Keeper(cfg());
    Fixtures.Snap demand = snap().busyInstances(2, 1).planned(5);
    Fixtures.Snap none = snap().busyInstances(2, 1);
    k.round(demand.build(), T0);
    ScaleDecision cleared = k.round(none.build(), T0 + 30 * S);
    assertThat(cleared.state().backlog()).isEmpty();
    ScaleDecision again = k.round(demand.build(), T0 + 45 * S);
    assertThat(again.instancesRequested()).isZero();
    assertThat(again.nextEvaluationMs()).isEqualTo(T0 + 105 * S);
    assertThat(k.add(demand.build(), T0 + 60 * S)).isZero();
    assertThat(k.add(demand.build(), T0 + 104_999)).isZero();
    assertThat(k.add(demand.build(), T0 + 105 * S)).isEqualTo(1);
  }

  @Test
  void coldStartProbesOneInstanceAfterTheGateThenOnePerRound() {
    Keeper k = new Keeper(cfg());
    assertThat(k.add(snap().pendingTables(3).build(), T0)).isZero();
    assertThat(k.last.nextEvaluationMs()).isEqualTo(T0 + 60 * S);
    ScaleDecision probe = k.round(snap().pendingTables(3).build(), T0 + 60 * S);
    assertThat(probe.scaleUp()).hasValueSatisfying(u -> {
      assertThat(u.kind()).isEqualTo(ScaleUp.Kind.PROBE);
      assertThat(u.instances()).isEqualTo(1);
    });
    String r1 = probe.scaleUp().orElseThrow().resourceIds().get(0);

    // The probe registered and is busy by the next round; tables still PENDING: one more per round. (A round
    // that sees the probe still booting has no demand: see ResetRulesTest.aBootingProbeCoversTheColdStart…)
    ScaleDecision second = k.round(snap().launchedAs("p1", 1, 1, r1).busy(1).pendingTables(2).build(), T0 + 90 * S);
    assertThat(second.instancesRequested()).isEqualTo(1);
    assertThat(second.scaleUp().orElseThrow().kind()).isEqualTo(ScaleUp.Kind.PROBE);
    String r2 = second.scaleUp().orElseThrow().resourceIds().get(0);
    ScaleDecision third = k.round(snap().launchedAs("p1", 1, 1, r1).launchedAs("p2", 1, 1, r2).busy(2).pendingTables(1)
        .build(), T0 + 120 * S);
    assertThat(third.instancesRequested()).isEqualTo(1);
    assertThat(third.state().ramp()).as("probes do not ramp").isEqualTo(1);
  }

  @Test
  void noFutureDemandWhileAThreadIsIdle() {
    Keeper k = new Keeper(cfg());
    // Two threads, one idle, one PLANNED task pending on a table, PENDING tables: neither immediate nor future demand.
    Fixtures.Snap s = snap().launched("i1", 1, 1).launched("i2", 1, 0).busy(1).pendingTables(3).planned(1);
    for (long t = 0; t <= 300; t += 30) {
      ScaleDecision d = k.round(s.build(), T0 + t * S);
      assertThat(d.instancesRequested()).as("t=%ds", t).isZero();
      assertThat(d.state().backlog()).isEmpty();
    }
  }
}
