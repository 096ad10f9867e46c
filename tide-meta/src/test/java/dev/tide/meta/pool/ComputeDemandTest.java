package dev.tide.meta.pool;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tide.common.config.Config;
import dev.tide.common.config.ConfigException;
import dev.tide.common.hash.VnodeBitmap;
import dev.tide.meta.ClusterSnapshot;
import dev.tide.meta.core.MetaCore.WorkerHealth;
import dev.tide.meta.scale.Intent;
import dev.tide.meta.scale.JobIntent;
import dev.tide.meta.schedule.ActorPlacement;
import dev.tide.meta.schedule.JobLayout;
import dev.tide.meta.schedule.Worker;
import dev.tide.optimizer.dra.InstanceView;
import dev.tide.optimizer.group.GroupConfig;
import dev.tide.proto.plan.JobDefinition;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/** The compute pool's view of meta: wanted slots, nodes packed in order, drains, and the options. */
class ComputeDemandTest {
  static WorkerHealth worker(int id, int slots, String state, String resourceId) {
    return new WorkerHealth(new Worker(id, "10.0.0." + id + ":7000", slots), state, 0, 0, 0, resourceId);
  }

  static ClusterSnapshot.JobView job(JobIntent intent, int... actorWorkers) {
    TreeMap<Integer, List<ActorPlacement>> fragments = new TreeMap<>();
    List<ActorPlacement> actors = new java.util.ArrayList<>();
    for (int i = 0; i < actorWorkers.length; i++) {
      actors.add(new ActorPlacement(i + 1, actorWorkers[i], VnodeBitmap.full(8), List.of()));
    }
    fragments.put(1, actors);
    return new ClusterSnapshot.JobView(JobDefinition.getDefaultInstance(), intent, new JobLayout(fragments), false, false);
  }

  @Test
  void theJobsWantTheirLargestFixedParallelismAndAdaptiveOnesOnlyOneSlot() {
    assertThat(ComputeDemand.wantedSlots(List.of())).isZero();
    assertThat(ComputeDemand.wantedSlots(List.of(JobIntent.adaptive()))).isEqualTo(1);
    assertThat(ComputeDemand.wantedSlots(List.of(JobIntent.adaptive(), JobIntent.fixed(3)))).isEqualTo(3);
    assertThat(ComputeDemand.wantedSlots(List.of(JobIntent.adaptive().withOverride(2, new Intent.Fixed(7)), JobIntent.fixed(3))))
        .as("an autoscaler's or a person's fragment override").isEqualTo(7);
  }

  @Test
  void wantedSlotsArePackedOntoHandStartedNodesFirstThenTheOldestLaunchedOnes() {
    List<WorkerHealth> workers = List.of(worker(3, 2, "active", "compute-200-0"), worker(1, 2, "active", ""),
        worker(2, 2, "active", "compute-100-0"));
    ComputeDemand d = ComputeDemand.of(workers, List.of(job(JobIntent.fixed(3), 1, 2, 3)), Set.of());
    assertThat(d.wantedSlots()).isEqualTo(3);
    assertThat(d.instances()).extracting(InstanceView::instanceId, InstanceView::inFlightTasks).containsExactly(
        org.assertj.core.groups.Tuple.tuple("worker-1", 2), org.assertj.core.groups.Tuple.tuple("worker-2", 1),
        org.assertj.core.groups.Tuple.tuple("worker-3", 0));
    assertThat(d.instances().get(0).providerLaunched()).isFalse();
    assertThat(d.instances().get(2).resourceId()).contains("compute-200-0");
    assertThat(d.load().busy()).isEqualTo(3);
    assertThat(d.load().serviceable()).isZero();
  }

  @Test
  void slotsBeyondTheClusterAreImmediateDemand() {
    ComputeDemand d = ComputeDemand.of(List.of(worker(1, 2, "active", "")), List.of(job(JobIntent.fixed(5), 1, 1, 1, 1, 1)), Set.of());
    // busy + serviceable − effective = 2 + 3 − 2: the keeper needs three more slots.
    assertThat(d.load().busy()).isEqualTo(2);
    assertThat(d.load().serviceable()).isEqualTo(3);
  }

  @Test
  void aDrainedNodeStaysBusyWithItsActorsUntilItLeftAndOneLaunchedAndDrainedByOthersIsLeaving() {
    List<WorkerHealth> workers = List.of(worker(1, 2, "active", ""), worker(2, 2, "draining", "compute-1-0"),
        worker(3, 2, "draining", "compute-1-1"), worker(4, 2, "left", "compute-1-2"), worker(6, 2, "draining", ""),
        worker(7, 2, "left", "compute-1-3"));
    ClusterSnapshot.JobView j = job(JobIntent.fixed(2), 1, 2, 2);
    ComputeDemand d = ComputeDemand.of(workers, List.of(j), Set.of("worker-2", "worker-4", "worker-5"));
    // worker-3 and worker-7 were drained by a person: listed as leaving (the keeper adopts their drains); worker-6
    // was started by hand and drained: gone for the pool.
    assertThat(d.instances()).extracting(InstanceView::instanceId, InstanceView::inFlightTasks, InstanceView::leaving).containsExactly(
        org.assertj.core.groups.Tuple.tuple("worker-1", 2, false), org.assertj.core.groups.Tuple.tuple("worker-2", 2, false),
        org.assertj.core.groups.Tuple.tuple("worker-3", 1, true), org.assertj.core.groups.Tuple.tuple("worker-4", 0, false),
        org.assertj.core.groups.Tuple.tuple("worker-7", 0, true));
    assertThat(d.load().busy()).isEqualTo(5);
    // Draining with no actor left in the layout, but not yet told to leave: still busy, not released yet.
    ComputeDemand moved = ComputeDemand.of(List.of(worker(1, 2, "active", ""), worker(2, 2, "draining", "compute-1-0")),
        List.of(job(JobIntent.fixed(2), 1, 1)), Set.of("worker-2"));
    assertThat(moved.instances().get(1).inFlightTasks()).isEqualTo(1);
    // Meta answered the drain but has not published the node's new state yet: still draining, not idle.
    ComputeDemand stale = ComputeDemand.of(List.of(worker(1, 2, "active", ""), worker(2, 2, "active", "compute-1-0")),
        List.of(job(JobIntent.fixed(2), 1, 2)), Set.of("worker-2"));
    assertThat(stale.instances()).extracting(InstanceView::instanceId, InstanceView::inFlightTasks).containsExactly(
        org.assertj.core.groups.Tuple.tuple("worker-1", 2), org.assertj.core.groups.Tuple.tuple("worker-2", 1));
    assertThat(ComputeDemand.workerId("worker-4")).contains(4);
    assertThat(ComputeDemand.workerId("default-1")).isEmpty();
  }

  @Test
  void aNodesIdleClockStartsWhenItsSlotsWereLastSeenNeededNotAtTheKeepersLastRound() {
    // The keeper rounds on changes and once a minute; a node busy between two rounds must not be idle since the first.
    List<WorkerHealth> workers = List.of(worker(1, 2, "active", ""), worker(2, 2, "active", "compute-1-0"));
    ComputeDemand busy = ComputeDemand.of(workers, List.of(job(JobIntent.fixed(4), 1, 1, 2, 2)), Set.of());
    Map<String, Long> seen = busy.lastBusy(Map.of(), 1_000);
    seen = busy.lastBusy(seen, 59_000);
    assertThat(seen).containsEntry("worker-2", 59_000L);
    ComputeDemand idle = ComputeDemand.of(workers, List.of(job(JobIntent.fixed(2), 1, 1)), Set.of());
    seen = idle.lastBusy(seen, 60_000);
    assertThat(seen).containsEntry("worker-2", 59_000L).containsEntry("worker-1", 60_000L);
    assertThat(idle.withLastBusy(seen).instances()).extracting(InstanceView::instanceId, InstanceView::lastTaskMs).containsExactly(
        org.assertj.core.groups.Tuple.tuple("worker-1", 60_000L), org.assertj.core.groups.Tuple.tuple("worker-2", 59_000L));
    // A node never seen busy has no reading (the keeper's idle clock starts at its first round); gone nodes are forgotten.
    ComputeDemand gone = ComputeDemand.of(List.of(worker(1, 2, "active", ""), worker(3, 2, "active", "compute-2-0")),
        List.of(job(JobIntent.fixed(2), 1, 1)), Set.of());
    seen = gone.lastBusy(seen, 61_000);
    assertThat(seen).containsOnlyKeys("worker-1");
    assertThat(gone.withLastBusy(seen).instances().get(1).lastTaskMs()).isEqualTo(Long.MIN_VALUE);
  }

  /** The decision core over the pool's demand: an idle-timeout counted from when the node was last seen busy. */
  @Test
  void theKeeperDrainsANodeOnlyAnIdleTimeoutAfterItsSlotsWereLastNeeded() {
    GroupConfig cfg = localPool();
    List<WorkerHealth> workers = List.of(worker(1, 2, "active", ""), worker(2, 2, "active", "compute-1-0"));
    ComputeDemand busy = ComputeDemand.of(workers, List.of(job(JobIntent.fixed(4), 1, 1, 2, 2)), Set.of());
    dev.tide.optimizer.dra.ScaleDecision first = dev.tide.optimizer.dra.ScaleDecider.decide(snapshot(busy.withLastBusy(Map.of())),
        dev.tide.optimizer.dra.KeeperState.initial(), cfg, 0);
    // No round for 60 s (nothing changed), the node was seen busy until 59 s, then the job scaled in.
    ComputeDemand idle = ComputeDemand.of(workers, List.of(job(JobIntent.fixed(2), 1, 1)), Set.of());
    Map<String, Long> seen = idle.lastBusy(busy.lastBusy(Map.of(), 59_000), 60_000);
    dev.tide.optimizer.dra.ScaleDecision second = dev.tide.optimizer.dra.ScaleDecider.decide(snapshot(idle.withLastBusy(seen)),
        first.state(), cfg, 60_000);
    assertThat(second.drain()).as(second.summary()).isEmpty();
    assertThat(second.nextEvaluationMs()).isEqualTo(89_000);
    dev.tide.optimizer.dra.ScaleDecision third = dev.tide.optimizer.dra.ScaleDecider.decide(snapshot(idle.withLastBusy(seen)),
        second.state(), cfg, ComputePoolOptions.TERMS, 89_000);
    assertThat(third.drain()).as(third.summary()).hasValueSatisfying(d -> assertThat(d.instanceId()).isEqualTo("worker-2"));
    // The pool's reasons speak of nodes and slots and cite the compute-pool.* options.
    assertThat(third.summary()).contains("scale-down: drain worker-2 (2 slots), idle 30000ms ≥ compute-pool.idle-timeout 30s;"
        + " active slots 4 → 2 (compute-pool.min-slots 0)");
  }

  /**
   * A person drains a node the pool launched: the keeper adopts the drain (no scale-down of its own, no cooldown), keeps
   * the node's resource while its actors migrate off — past the boot deadline, which applies to resources it does not
   * know — and releases it once the node left.
   */
  @Test
  void theKeeperAdoptsAPersonsDrainOfALaunchedNodeAndReleasesItOnlyOnceItLeft() {
    GroupConfig cfg = localPool();
    List<WorkerHealth> active = List.of(worker(1, 2, "active", ""), worker(2, 2, "active", "compute-1-0"));
    ComputeDemand busy = ComputeDemand.of(active, List.of(job(JobIntent.fixed(4), 1, 1, 2, 2)), Set.of());
    dev.tide.optimizer.dra.ScaleDecision first = dev.tide.optimizer.dra.ScaleDecider.decide(snapshot(busy),
        dev.tide.optimizer.dra.KeeperState.initial(), cfg, ComputePoolOptions.TERMS, 0);
    // ctl worker drain 2: its two actors migrate off for minutes (longer than the 2 min boot deadline).
    ComputeDemand draining = ComputeDemand.of(List.of(worker(1, 2, "active", ""), worker(2, 2, "draining", "compute-1-0")),
        List.of(job(JobIntent.fixed(4), 1, 1, 2, 2)), Set.of());
    dev.tide.optimizer.dra.ScaleDecision adopted = dev.tide.optimizer.dra.ScaleDecider.decide(snapshot(draining), first.state(), cfg,
        ComputePoolOptions.TERMS, 1_000);
    assertThat(adopted.summary()).contains("node worker-2 is being drained by someone else: its resource is released once it is idle");
    assertThat(adopted.state().draining()).containsKey("worker-2");
    assertThat(adopted.state().scaleDownStarts()).isZero();
    assertThat(adopted.state().lastScaleDownMs()).isEmpty();
    assertThat(adopted.drain()).isEmpty();
    assertThat(adopted.summary()).as("the drained slots count no longer").contains("need 2 slots");
    dev.tide.optimizer.dra.ScaleDecision later = dev.tide.optimizer.dra.ScaleDecider.decide(snapshot(draining), adopted.state(), cfg,
        ComputePoolOptions.TERMS, 300_000);
    // The jobs still want 4 slots: after the backlog timer, the pool replaces the slots being drained.
    assertThat(later.scaleUp()).as(later.summary()).hasValueSatisfying(u -> assertThat(u.instances()).isEqualTo(1));
    assertThat(later.removals()).as(later.summary()).isEmpty();
    assertThat(later.releases()).as(later.summary()).isEmpty();
    // It left: removed, its resource released.
    ComputeDemand left = ComputeDemand.of(List.of(worker(1, 2, "active", ""), worker(2, 2, "left", "compute-1-0")),
        List.of(job(JobIntent.fixed(2), 1, 1)), Set.of());
    dev.tide.optimizer.dra.ScaleDecision done = dev.tide.optimizer.dra.ScaleDecider.decide(snapshot(left), later.state(), cfg,
        ComputePoolOptions.TERMS, 301_000);
    assertThat(done.removals()).as(done.summary()).singleElement()
        .satisfies(r -> assertThat(r.resourceId()).isEqualTo("compute-1-0"));
  }

  /** A local pool's group configuration, idle timeout 30 s. */
  private static GroupConfig localPool() {
    return GroupConfig.parse(ComputePoolOptions.definition(Config.defaults()
        .with(ComputePoolOptions.PROVIDER, "local").with(ComputePoolOptions.IDLE_TIMEOUT, Duration.ofSeconds(30))).properties(), "local",
        List.of(dev.tide.optimizer.provider.LocalProcessProvider.JVM_OPTIONS));
  }

  private static dev.tide.optimizer.dra.GroupSnapshot snapshot(ComputeDemand d) {
    return dev.tide.optimizer.dra.GroupSnapshot.of(ComputePoolOptions.POOL, d.load(), d.instances(), Map.of(), java.util.Optional.empty());
  }

  @Test
  void optionsBecomeTheGroupsPropertiesAndInvalidOnesNameThePoolKey() {
    Config c = Config.defaults().with(ComputePoolOptions.PROVIDER, "local").with(ComputePoolOptions.MAX_SLOTS, 8)
        .with(ComputePoolOptions.IDLE_TIMEOUT, Duration.ofSeconds(45));
    Map<String, String> props = ComputePoolOptions.definition(c).properties();
    assertThat(props).containsEntry(GroupConfig.ENABLED.key(), "true").containsEntry(GroupConfig.MAX_PARALLELISM.key(), "8")
        .containsEntry(GroupConfig.EXECUTOR_IDLE_TIMEOUT.key(), "45000ms").containsEntry(GroupConfig.EXECUTOR_PARALLELISM.key(), "2");
    assertThatThrownBy(() -> ComputePoolOptions.definition(c.with(ComputePoolOptions.MIN_SLOTS, 9))).isInstanceOf(ConfigException.class)
        .hasMessageContaining("compute-pool.min-slots").hasMessageContaining("9");
    assertThatThrownBy(() -> ComputePoolOptions.definition(c.with(ComputePoolOptions.IDLE_TIMEOUT, Duration.ofSeconds(5))))
        .isInstanceOf(ConfigException.class).hasMessageContaining("compute-pool.idle-timeout");
    assertThatThrownBy(() -> ComputePoolOptions.PROVIDER.parse("cloud")).hasMessageContaining("one of none, in-process, local, kubernetes");
  }
}
