package dev.tide.optimizer.dra;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tide.optimizer.group.GroupConfig;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;

/**
 * Random configurations driven through random rounds (random snapshots, registrations, failures,
 * releases confirmed or failed, provider listings with resources deleted by hand or unknown, DRA
 * switched off and on, clock steps) from the initial state, so every state checked is reachable.
 * After every round: no request takes what the provider may hold above the cap, a drain never takes
 * active threads below min, removals only concern draining instances, deadlines lie ahead, and the
 * decision is a function of its inputs.
 */
class ScaleDeciderPropertyTest {

  static GroupConfig randomConfig(Random r) {
    return randomConfig(r, true);
  }

  static GroupConfig randomConfig(Random r, boolean enabled) {
    int k = 1 + r.nextInt(8);
    int max = k + r.nextInt(1024 - k + 1);
    int floorInstances = r.nextInt(max / k + 1);
    int min = floorInstances == 0 ? 0 : (floorInstances - 1) * k + 1 + r.nextInt(k);
    long idleS = 30 + r.nextInt(600);
    long sustainedS = 1 + r.nextInt((int) (idleS / 2));
    Map<String, String> m = new HashMap<>();
    m.put("dynamic-allocation.enabled", String.valueOf(enabled));
    m.put("dynamic-allocation.executor-parallelism", String.valueOf(k));
    m.put("dynamic-allocation.max-parallelism", String.valueOf(max));
    m.put("dynamic-allocation.min-parallelism", String.valueOf(min));
    m.put("dynamic-allocation.scheduler-backlog-timeout", (1 + r.nextInt(120)) + "s");
    m.put("dynamic-allocation.sustained-backlog-timeout", sustainedS + "s");
    m.put("dynamic-allocation.executor-idle-timeout", idleS + "s");
    m.put("dynamic-allocation.scale-down-cooldown", (1 + r.nextInt(120)) + "s");
    m.put("dynamic-allocation.drain-timeout", (1 + r.nextInt(1200)) + "s");
    m.put("dra.boot-deadline", (1 + r.nextInt(300)) + "s");
    return GroupConfig.parse(m, r.nextBoolean() ? "kubernetes" : "local");
  }

  static GroupSnapshot randomSnapshot(Random r, KeeperState state, GroupConfig cfg) {
    List<InstanceView> instances = new ArrayList<>();
    Set<String> used = new HashSet<>();
    int inFlight = 0;
    int pool = r.nextInt(12);
    for (int i = 0; i < pool; i++) {
      String id = "i" + r.nextInt(16);
      if (!used.add(id)) {
        continue;
      }
      int threads = r.nextInt(5) == 0 ? 1 + r.nextInt(8) : cfg.executorParallelism();
      int f = r.nextInt(3) == 0 ? 0 : r.nextInt(threads + 1);
      inFlight += f;
      instances.add(r.nextInt(6) == 0 ? InstanceView.manual(id, threads, f) : InstanceView.launched(id, threads, f, "res-" + id));
    }
    Map<String, ProviderOutcome> outcomes = new HashMap<>();
    Map<String, Integer> held = new HashMap<>();
    for (PendingRequest p : state.pendingRequests()) {
      held.put(p.resourceId(), p.threads());
      switch (r.nextInt(7)) {
        case 0 -> instances.add(InstanceView.launched("reg-" + p.resourceId(), p.threads(), r.nextInt(p.threads() + 1),
            p.resourceId()));
        case 1 -> {
          outcomes.put(p.resourceId(), ProviderOutcome.REQUEST_FAILED);
          held.remove(p.resourceId());
        }
        case 2 -> outcomes.put(p.resourceId(), ProviderOutcome.LAUNCHED_UNPERSISTED);
        case 3 -> held.remove(p.resourceId()); // deleted by hand
        default -> { }
      }
    }
    for (PendingRelease x : state.releases()) {
      held.put(x.resourceId(), x.threads());
      switch (r.nextInt(5)) {
        case 0 -> {
          outcomes.put(x.resourceId(), ProviderOutcome.RELEASED);
          held.remove(x.resourceId());
        }
        case 1 -> outcomes.put(x.resourceId(), ProviderOutcome.RELEASE_FAILED);
        case 2 -> instances.add(InstanceView.launched("late-" + x.resourceId(), x.threads(), 0, x.resourceId()));
        default -> { }
      }
    }
    for (Map.Entry<String, Drain> e : state.draining().entrySet()) {
      if (e.getValue().removalAttempts() > 0 && !e.getValue().released()) {
        outcomes.put("res-" + e.getKey(), r.nextBoolean() ? ProviderOutcome.RELEASED : ProviderOutcome.RELEASE_FAILED);
      }
    }
    for (InstanceView i : instances) {
      i.resourceId().ifPresent(id -> held.put(id, i.threads()));
    }
    if (r.nextInt(8) == 0) {
      held.put("orphan-" + r.nextInt(4), cfg.executorParallelism()); // held, unknown to the keeper
    }
    inFlight = instances.stream().mapToInt(InstanceView::inFlightTasks).sum();
    int planned = r.nextInt(4) == 0 ? 0 : r.nextInt(200);
    int serviceable = planned == 0 ? 0 : r.nextInt(planned + 1);
    int pendingTables = r.nextInt(3) == 0 ? r.nextInt(6) : 0;
    return new GroupSnapshot("g", inFlight + r.nextInt(3), planned, serviceable, TableCounts.pendingOnly(pendingTables),
        instances, outcomes, r.nextInt(4) == 0 ? Optional.of(held) : Optional.empty());
  }

  @Property(tries = 200)
  void roundsRespectCapFloorAndAreDeterministic(@ForAll long seed) {
    Random r = new Random(seed);
    long configSeed = r.nextLong();
    GroupConfig enabled = randomConfig(new Random(configSeed), true);
    GroupConfig disabled = randomConfig(new Random(configSeed), false);
    GroupConfig cfg = enabled;
    KeeperState state = KeeperState.initial();
    long now = 1_000_000L;
    for (int round = 0; round < 60; round++) {
      if (r.nextInt(20) == 0) { // DRA switched off (the shell keeps the unfinished work) or on again
        state = cfg == enabled ? state.whenDisabled() : state;
        cfg = cfg == enabled ? disabled : enabled;
      }
      GroupSnapshot snap = randomSnapshot(r, state, cfg);
      ScaleDecision d = ScaleDecider.decide(snap, state, cfg, now);
      ScaleDecision again = ScaleDecider.decide(snap, state, cfg, now);
      assertThat(again).as("seed %d round %d: deterministic", seed, round).isEqualTo(d);
      check(seed, round, cfg, snap, d, now);
      state = d.state();
      long step = r.nextInt(4) == 0 ? Math.max(0, Math.min(d.nextEvaluationMs(), now + 3_600_000L) - now)
          : r.nextInt(120_000);
      now += step;
    }
  }

  private static void check(long seed, int round, GroupConfig cfg, GroupSnapshot snap, ScaleDecision d, long now) {
    String at = "seed " + seed + " round " + round + ": " + d.summary();
    KeeperState s = d.state();
    Map<String, InstanceView> byId = snap.instancesById();
    int active = 0;
    for (InstanceView i : snap.instances()) {
      if (!s.draining().containsKey(i.instanceId())) {
        active += i.threads();
      }
    }
    Set<String> registeredResources = new HashSet<>();
    snap.instances().forEach(i -> i.resourceId().ifPresent(registeredResources::add));
    assertThat(s.pendingRequests()).as(at).noneMatch(p -> registeredResources.contains(p.resourceId()));
    if (d.scaleUp().isPresent()) {
      Capacity held = Capacity.of(snap.instances(), s.draining(), s.pendingRequests(), s.releases());
      assertThat(held.heldThreads()).as(at + ": requests never take what the provider holds above max-parallelism")
          .isLessThanOrEqualTo(cfg.maxParallelism());
      assertThat(d.scaleUp().get().threadsPerInstance()).isEqualTo(cfg.executorParallelism());
      assertThat(d.drain()).as(at + ": no drain in a scale-up round").isEmpty();
    }
    if (!cfg.draEnabled()) {
      assertThat(d.drain()).as(at + ": the floor-only keeper never starts a drain").isEmpty();
      d.scaleUp().ifPresent(u -> assertThat(u.kind()).as(at).isEqualTo(ScaleUp.Kind.FLOOR));
    }
    d.drain().ifPresent(x -> {
      InstanceView i = byId.get(x.instanceId());
      assertThat(i).as(at).isNotNull();
      assertThat(i.providerLaunched()).as(at).isTrue();
      assertThat(i.inFlightTasks()).as(at).isZero();
    });
    if (d.drain().isPresent()) {
      assertThat(active).as(at + ": never below min when removing").isGreaterThanOrEqualTo(cfg.minParallelism());
    }
    for (Removal x : d.removals()) {
      assertThat(s.draining()).as(at + ": removals only of draining instances").containsKey(x.instanceId());
    }
    assertThat(d.nextEvaluationMs()).as(at).isGreaterThanOrEqualTo(now);
    if (d.nextEvaluationMs() == now) {
      assertThat(d.drain().isPresent() || !d.releases().isEmpty() || !d.removals().isEmpty())
          .as(at + ": only a drain start or releases ask to be re-run at once").isTrue();
    }
    assertThat(s.ramp()).as(at).isBetween(1, 2 * cfg.maxParallelism());
  }

  @Property(tries = 200)
  void decisionDependsOnlyOnItsInputs(@ForAll long seed) {
    // Same inputs through two independent paths (fresh objects) give equal decisions.
    GroupConfig cfg1 = randomConfig(new Random(seed));
    GroupConfig cfg2 = randomConfig(new Random(seed));
    GroupSnapshot s1 = randomSnapshot(new Random(seed + 1), KeeperState.initial(), cfg1);
    GroupSnapshot s2 = randomSnapshot(new Random(seed + 1), KeeperState.initial(), cfg2);
    assertThat(cfg1).isEqualTo(cfg2);
    assertThat(ScaleDecider.decide(s1, KeeperState.initial(), cfg1, 42L))
        .isEqualTo(ScaleDecider.decide(s2, KeeperState.initial(), cfg2, 42L));
  }
}
