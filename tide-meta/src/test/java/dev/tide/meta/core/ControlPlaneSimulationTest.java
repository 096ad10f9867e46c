package dev.tide.meta.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.LocalDate;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * The seeded control-plane simulation ({@link ControlPlaneSimulation}) over many seeds. The first
 * seed is {@code -Dtide.sim.first-seed} (default: derived from today's date, so every day explores
 * new seeds; printed), the count {@code -Dtide.sim.seeds} (default 2000; the chaos profile runs more).
 * A failing seed prints its trace and replays exactly with {@code -Dtide.sim.first-seed=SEED -Dtide.sim.seeds=1}.
 */
class ControlPlaneSimulationTest {
  static final long DURATION_MS = 40_000;

  static long firstSeed() {
    String s = System.getProperty("tide.sim.first-seed");
    return s != null && !s.isBlank() ? Long.parseLong(s.trim()) : LocalDate.now(java.time.ZoneOffset.UTC).toEpochDay() * 100_000;
  }

  @Test
  void manySeedsKeepEveryInvariant() {
    long first = firstSeed();
    int seeds = Integer.getInteger("tide.sim.seeds", 2000);
    System.out.println("control-plane simulation: seeds " + first + " .. " + (first + seeds - 1)
        + " (replay one with -Dtide.sim.first-seed=SEED -Dtide.sim.seeds=1)");
    Map<String, Integer> totals = new TreeMap<>();
    for (long seed = first; seed < first + seeds; seed++) {
      ControlPlaneSimulation sim = new ControlPlaneSimulation(seed);
      sim.run(DURATION_MS);
      sim.counts.forEach((k, v) -> totals.merge(k, v, Integer::sum));
    }
    System.out.println("control-plane simulation: " + seeds + " seeds passed; totals " + totals);
    assertThat(totals.getOrDefault("reschedules applied", 0)).isPositive();
    assertThat(totals.getOrDefault("leaves", 0)).isPositive();
    assertThat(totals.getOrDefault("meta restarts", 0)).isPositive();
  }

  @Test
  void aSeedReplaysTheSameTrace() {
    long seed = firstSeed() + 7;
    List<String> once = new ControlPlaneSimulation(seed).run(DURATION_MS);
    List<String> again = new ControlPlaneSimulation(seed).run(DURATION_MS);
    assertThat(again).isEqualTo(once);
    assertThat(once.size()).isGreaterThan(20);
  }
}
