package dev.tide.optimizer.dra;

import static dev.tide.optimizer.dra.Fixtures.S;
import static dev.tide.optimizer.dra.Fixtures.T0;
import static dev.tide.optimizer.dra.Fixtures.cfg;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tide.common.time.ManualClock;
import dev.tide.optimizer.group.GroupConfig;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * A single-threaded keeper shell over a manual clock: it jumps the clock to the earlier of the core's
 * {@code nextEvaluationMs} and the next world event (a registration), reads the clock once per round,
 * and realizes the decision against a fake provider (requests register after the boot delay unless
 * lost; releases are confirmed in the next snapshot). The spec's timelines must come out exactly.
 */
class KeeperTimelineSimulationTest {

  /** A group whose optimizers boot in {@code bootDelayMs} and, once registered, run work as the world dictates. */
  private static final class World {
    final ManualClock clock = new ManualClock(T0);
    final GroupConfig cfg;
    final long bootDelayMs;
    final TreeMap<Long, List<String>> registrations = new TreeMap<>(); // time → resource ids
    final Map<String, Integer> registered = new TreeMap<>(); // resource id → threads
    /** Requests (by 0-based index) that never register, like a pod that is never scheduled. */
    final Set<Integer> lost = new HashSet<>();
    final Map<String, ProviderOutcome> outcomes = new TreeMap<>();
    final List<Long> releases = new ArrayList<>(); // seconds after T0
    int requests;
    int plannedTasks;
    int pendingTables;
    final List<Long> evaluations = new ArrayList<>();
    final List<long[]> adds = new ArrayList<>(); // {seconds after T0, instances}
    KeeperState state = KeeperState.initial();

    World(GroupConfig cfg, long bootDelayMs) {
      this.cfg = cfg;
      this.bootDelayMs = bootDelayMs;
    }

    /** Huge backlog: every registered thread busy. Cold start: each registered thread plans one PENDING table. */
    GroupSnapshot snapshot() {
      List<InstanceView> instances = new ArrayList<>();
      int threads = 0;
      for (Map.Entry<String, Integer> e : registered.entrySet()) {
        instances.add(InstanceView.launched("opt-" + e.getKey(), e.getValue(), e.getValue(), e.getKey()));
        threads += e.getValue();
      }
      return new GroupSnapshot("g", threads, plannedTasks, plannedTasks, TableCounts.pendingOnly(pendingTables), instances,
          outcomes, Optional.empty());
    }

    /** Runs rounds until {@code untilMs}; {@code onRegistered} updates the world when an instance registers. */
    void run(long untilMs, Runnable onRegistered) {
      long next = clock.nowMillis();
      while (true) {
        long event = registrations.isEmpty() ? Long.MAX_VALUE : registrations.firstKey();
        long at = Math.min(next, event);
        if (at > untilMs) {
          return;
        }
        clock.set(at);
        long now = clock.nowMillis(); // read once per round
        if (registrations.containsKey(now)) {
          for (String rid : registrations.remove(now)) {
            registered.put(rid, cfg.executorParallelism());
            onRegistered.run();
          }
        }
        evaluations.add(now - T0);
        ScaleDecision d = ScaleDecider.decide(snapshot(), state, cfg, now);
        outcomes.clear();
        for (Release r : d.releases()) {
          releases.add((now - T0) / S);
          outcomes.put(r.resourceId(), ProviderOutcome.RELEASED);
        }
        d.scaleUp().ifPresent(u -> {
          adds.add(new long[] {(now - T0) / S, u.instances()});
          for (String id : u.resourceIds()) {
            if (!lost.contains(requests++)) {
              registrations.computeIfAbsent(now + bootDelayMs, t -> new ArrayList<>()).add(id);
            }
          }
        });
        state = d.state();
        next = d.nextEvaluationMs();
        assertThat(next).as("deadlines lie ahead, except right after a drain start").isGreaterThan(now);
      }
    }
  }

  private static List<String> timeline(World w) {
    return w.adds.stream().map(a -> "+" + a[0] + "s:" + a[1]).toList();
  }

  @Test
  void rampTimelineLandsExactlyOnTheSpecsSeconds() {
    World w = new World(cfg("dynamic-allocation.executor-parallelism", "2"), 20 * S);
    w.registered.put("seed", 2);
    w.plannedTasks = 100_000; // demand begins at T0: the shell runs a round on that event
    w.run(T0 + 150 * S, () -> {});
    assertThat(timeline(w)).containsExactly("+60s:1", "+90s:2", "+120s:4", "+150s:8");
    // From T0 the loop jumped straight to the backlog gate: no round in between.
    assertThat(w.evaluations.subList(0, 2)).containsExactly(0L, 60_000L);
    // Registrations at +80, +110, +140 s are events: evaluated, but they do not disturb the spacing.
    assertThat(w.evaluations).contains(80_000L, 110_000L, 140_000L);
  }

  @Test
  void coldStartTimelineProbesAtSixtyThenEverySustainedInterval() {
    World w = new World(cfg(), 20 * S);
    w.pendingTables = 3;
    w.run(T0 + 200 * S, () -> w.pendingTables = Math.max(0, w.pendingTables - 1));
    assertThat(timeline(w)).containsExactly("+60s:1", "+90s:1", "+120s:1");
    assertThat(w.evaluations.subList(0, 2)).containsExactly(0L, 60_000L);
  }

  @Test
  void aProbeThatNeverRegistersIsReleasedAtItsBootDeadlineAndReplacedAfterANewGate() {
    World w = new World(cfg(), 20 * S);
    w.pendingTables = 3;
    w.lost.add(0);
    w.run(T0 + 400 * S, () -> w.pendingTables = Math.max(0, w.pendingTables - 1));
    assertThat(w.releases).containsExactly(240L);
    // While it boots the probe covers the cold start; once released the demand returns and waits 60 s again.
    assertThat(timeline(w)).containsExactly("+60s:1", "+300s:1", "+330s:1", "+360s:1");
  }

  @Test
  void referenceCadenceIsUpToSustainedLateWhileDeadlinesAreExact() {
    GroupConfig cfg = cfg();
    GroupSnapshot demand = Fixtures.snap().busyInstances(1, 1).planned(10).build();
    GroupSnapshot none = Fixtures.snap().busyInstances(1, 1).build();
    long demandStart = T0 + 1;

    // Reference: a round every sustained-backlog-timeout, whatever happens.
    KeeperState ref = KeeperState.initial();
    long refFirstAdd = -1;
    for (long t = T0; refFirstAdd < 0; t += 30 * S) {
      ScaleDecision d = ScaleDecider.decide(t >= demandStart ? demand : none, ref, cfg, t);
      ref = d.state();
      if (d.instancesRequested() > 0) {
        refFirstAdd = t;
      }
    }
    assertThat(refFirstAdd - demandStart).isEqualTo(90 * S - 1);

    // Tide: a round on the demand event, then at the returned deadline.
    ScaleDecision first = ScaleDecider.decide(demand, KeeperState.initial(), cfg, demandStart);
    ScaleDecision second = ScaleDecider.decide(demand, first.state(), cfg, first.nextEvaluationMs());
    assertThat(second.instancesRequested()).isEqualTo(1);
    assertThat(first.nextEvaluationMs() - demandStart).isEqualTo(60 * S);
  }

  @Test
  void withoutDemandOrDeadlinesThereIsNothingToWakeFor() {
    ScaleDecision d = ScaleDecider.decide(Fixtures.snap().busyInstances(2, 1).build(), KeeperState.initial(), cfg(), T0);
    assertThat(d.nextEvaluationMs()).isEqualTo(ScaleDecision.NO_DEADLINE);
  }
}
