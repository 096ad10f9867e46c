package dev.tide.meta.autoscale;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tide.meta.scale.AutoscaleSpec;
import org.junit.jupiter.api.Test;

/**
 * The real autoscaler driven by {@link LoadSimulation}: load steps, a sine load and a hot key, on
 * simulated time. Each test prints its action counts.
 */
class AutoscalerSimulationTest {
  private static final AutoscaleSpec RANGE = new AutoscaleSpec(1, 32, 0);
  /** The options' defaults; TIGHT runs at a target utilization of 0.9 (band 0.1), for the convergence check. */
  private static final AutoscalerOptions.Settings DEFAULTS = new AutoscalerOptions.Settings(0.7, 0.2, 30_000, 20_000, 300_000, 30_000, 0.1);
  private static final AutoscalerOptions.Settings TIGHT = new AutoscalerOptions.Settings(0.9, 0.1, 30_000, 20_000, 300_000, 30_000, 0.1);

  @Test
  void aStepToThreeTimesTheLoadConvergesInTwoActionsWithinTwentyPercentOfTheSmallestSustainingParallelism() {
    LoadSimulation sim = new LoadSimulation(TIGHT, RANGE, 1, 3, 100_000, 1000, 0);
    sim.run(300, t -> 2100);
    assertThat(sim.applied).as("steady 1× load in band: nothing to do").isEmpty();
    sim.run(1800, t -> 6300);
    int smallest = (int) Math.ceil(6300 / 1000.0);
    System.out.printf("step 1x->3x: %d actions on agg (%s), final %d actors, smallest sustaining %d, backlog %.0f%n",
        sim.actionsOn(LoadSimulation.AGG), sim.applied, sim.aggParallelism(), smallest, sim.backlog());
    assertThat(sim.actionsOn(LoadSimulation.AGG)).isBetween(1L, 2L);
    assertThat(sim.actionsOn(LoadSimulation.SOURCE)).isZero();
    assertThat(sim.aggParallelism()).isBetween(smallest, (int) Math.floor(smallest * 1.2));
    assertThat(sim.backlog()).isZero();
  }

  @Test
  void aStepDownScalesInOnceAfterTheDelay() {
    LoadSimulation sim = new LoadSimulation(DEFAULTS, RANGE, 1, 10, 100_000, 1000, 0);
    sim.run(300, t -> 6300);
    assertThat(sim.applied).isEmpty();
    long stepAt = sim.nowMs();
    sim.run(1200, t -> 2100);
    System.out.printf("step 3x->1x: %s%n", sim.applied);
    assertThat(sim.applied).hasSize(1);
    LoadSimulation.Applied down = sim.applied.get(0);
    assertThat(down.action().to()).isLessThan(10).isGreaterThanOrEqualTo(3);
    assertThat(down.atMs() - stepAt).as("not before the scale-down delay").isGreaterThanOrEqualTo(DEFAULTS.scaleDownDelayMs());
    assertThat(down.action().reason()).startsWith("scale-down 10 → ");
  }

  @Test
  void aSineLoadOverAnHourDoesNotOscillate() {
    LoadSimulation sim = new LoadSimulation(DEFAULTS, RANGE, 1, 6, 100_000, 1000, 0);
    sim.run(3600, t -> 4000 * (1 + 0.3 * Math.sin(2 * Math.PI * t / 600_000.0)));
    System.out.printf("sine ±30%% period 10 min, 1 h: %d actions: %s%n", sim.applied.size(), sim.applied);
    for (int i = 1; i < sim.applied.size(); i++) {
      LoadSimulation.Applied a = sim.applied.get(i - 1);
      LoadSimulation.Applied b = sim.applied.get(i);
      boolean upThenDown = b.action().to() < b.action().from() && a.action().to() > a.action().from();
      assertThat(upThenDown && b.atMs() - a.atMs() < DEFAULTS.stabilizationMs())
          .as("%s then %s within the stabilization window", a, b).isFalse();
    }
    assertThat(sim.applied.size()).as("the scale-down delay outlasts a trough").isLessThanOrEqualTo(2);
  }

  @Test
  void aHotKeyIsDetectedAsIneffectiveAndScalingUpStops() {
    LoadSimulation sim = new LoadSimulation(DEFAULTS, RANGE, 1, 3, 100_000, 1000, 0.5);
    sim.run(300, t -> 1500);
    sim.run(1800, t -> 6000);
    System.out.printf("hot key: %s%n", sim.applied);
    assertThat(sim.actionsOn(LoadSimulation.AGG)).as("one scale-up, found ineffective").isEqualTo(1);
    assertThat(sim.actionsOn(LoadSimulation.SOURCE)).as("the backpressured source is not the bottleneck").isZero();
    AutoscalerCore.EnsembleView agg = sim.lastRound.views().get("q").stream().filter(v -> v.root() == LoadSimulation.AGG).findFirst()
        .orElseThrow();
    assertThat(agg.status()).contains("scale-up stopped").contains("hot key");
  }
}
