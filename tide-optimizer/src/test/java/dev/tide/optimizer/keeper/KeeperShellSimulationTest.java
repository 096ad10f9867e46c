package dev.tide.optimizer.keeper;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tide.common.time.ManualClock;
import dev.tide.optimizer.dra.GroupMetrics;
import dev.tide.optimizer.dra.InstanceView;
import dev.tide.optimizer.group.GroupDefinition;
import dev.tide.optimizer.group.TableLoad;
import dev.tide.optimizer.group.TableStatus;
import dev.tide.optimizer.provider.LaunchSpec;
import dev.tide.optimizer.provider.ResourceProvider;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.function.IntToLongFunction;
import org.junit.jupiter.api.Test;

/**
 * The keeper shell driving a simulated compaction pool on a manual clock: a burst of tasks arrives, the
 * group scales up from its floor (instances boot for 15 s before they register), works the backlog off,
 * and drains back to the floor. Every task completes exactly once. Prints the timeline. A second run has
 * a provider that starts instances late (after the boot deadline, like a pod that waits for a node) and
 * checks that what the provider holds never exceeds max-parallelism.
 */
class KeeperShellSimulationTest {
  static final long T0 = 1_700_000_000_000L;
  static final long S = 1000;
  static final String G = "default";
  static final long BOOT_MS = 15 * S;
  static final long TASK_MS = 20 * S;
  static final int K = 2;

  final ManualClock clock = new ManualClock(T0);
  final ManualScheduler scheduler = new ManualScheduler(clock);

  /** One table's tasks and the instances working them; every change notifies the keeper. */
  final class Pool implements GroupLoadSource, ResourceProvider {
    final Deque<Integer> planned = new ArrayDeque<>();
    final TreeMap<String, Instance> instances = new TreeMap<>();
    final Map<Integer, Integer> completions = new HashMap<>();
    final List<Runnable> listeners = new ArrayList<>();
    /** Resources requested and not released, with their threads: what the provider holds (and bills). */
    final TreeMap<String, Integer> held = new TreeMap<>();
    /** Boot time of the n-th request (0-based). */
    final IntToLongFunction bootMs;
    int launched;
    int peakHeldThreads;

    Pool(IntToLongFunction bootMs) {
      this.bootMs = bootMs;
    }

    final class Instance {
      final String id;
      final String resourceId;
      int inFlight;
      final List<Integer> tasks = new ArrayList<>();
      boolean draining;

      Instance(String resourceId) {
        this.id = "opt-" + resourceId;
        this.resourceId = resourceId;
      }
    }

    void add(int tasks) {
      for (int i = 0; i < tasks; i++) {
        planned.add(completions.size() + planned.size());
      }
      dispatch();
    }

    void dispatch() {
      for (Instance i : instances.values()) {
        while (!i.draining && i.inFlight < K && !planned.isEmpty()) {
          int task = planned.poll();
          i.inFlight++;
          i.tasks.add(task);
          scheduler.schedule(() -> complete(i, task), TASK_MS, TimeUnit.MILLISECONDS);
        }
      }
      listeners.forEach(Runnable::run);
    }

    void complete(Instance i, int task) {
      if (!i.tasks.remove((Integer) task)) {
        return; // the instance was released and the task reclaimed
      }
      i.inFlight--;
      completions.merge(task, 1, Integer::sum);
      dispatch();
    }

    int busy() {
      return instances.values().stream().mapToInt(i -> i.inFlight).sum();
    }

    @Override
    public List<TableLoad> tables(String group) {
      TableStatus status = planned.isEmpty() && busy() == 0 ? TableStatus.IDLE : TableStatus.OPTIMIZING;
      return List.of(new TableLoad("state-1", status, 1.0, planned.size(), busy()));
    }

    @Override
    public List<InstanceView> instances(String group) {
      return instances.values().stream().map(i -> InstanceView.launched(i.id, K, i.inFlight, i.resourceId)).toList();
    }

    @Override
    public void drain(String group, String instanceId) {
      instances.values().stream().filter(i -> i.id.equals(instanceId)).forEach(i -> i.draining = true);
    }

    @Override
    public void addListener(Runnable listener) {
      listeners.add(listener);
    }

    @Override
    public String name() {
      return "in-process";
    }

    @Override
    public void request(LaunchSpec spec) {
      long boot = bootMs.applyAsLong(launched++);
      held.put(spec.resourceId(), spec.threads());
      peakHeldThreads = Math.max(peakHeldThreads, held.values().stream().mapToInt(Integer::intValue).sum());
      scheduler.schedule(() -> {
        if (held.containsKey(spec.resourceId())) { // a released request never starts
          instances.put(spec.resourceId(), new Instance(spec.resourceId()));
          dispatch();
        }
      }, boot, TimeUnit.MILLISECONDS);
    }

    @Override
    public void release(String resourceId) {
      held.remove(resourceId);
      Instance gone = instances.remove(resourceId); // the process stops and unregisters
      if (gone != null) {
        planned.addAll(gone.tasks); // its tasks go back to PLANNED (reclaimed)
        gone.inFlight = 0;
        gone.tasks.clear();
      }
      scheduler.execute(this::dispatch);
    }

    @Override
    public List<LaunchSpec> list() {
      return held.entrySet().stream().map(e -> LaunchSpec.of(G, e.getKey(), e.getValue(), Map.of())).toList();
    }
  }

  /** Keepers over {@code pool} with group {@link #G}: DRA on, floor 2, cap 12, K {@link #K}, then {@code kv}. */
  private GroupKeepers keep(Pool pool, String... kv) {
    GroupKeepers keepers = new GroupKeepers(clock, scheduler, pool, new InMemoryGroupStore(), Map.of(pool.name(), pool));
    keepers.start();
    Map<String, String> props = new HashMap<>(Map.of("dynamic-allocation.enabled", "true", "dynamic-allocation.min-parallelism", "2",
        "dynamic-allocation.max-parallelism", "12", "dynamic-allocation.executor-parallelism", String.valueOf(K)));
    for (int i = 0; i < kv.length; i += 2) {
      props.put(kv[i], kv[i + 1]);
    }
    keepers.create(GroupDefinition.of(G, pool.name(), props));
    return keepers;
  }

  @Test
  void aBurstScalesTheGroupUpFromItsFloorAndBackWithEveryTaskDoneOnce() {
    Pool pool = new Pool(n -> BOOT_MS);
    GroupKeepers keepers = keep(pool, "dynamic-allocation.executor-idle-timeout", "2min", "dynamic-allocation.scale-down-cooldown", "30s");

    List<String> timeline = new ArrayList<>();
    int peakInstances = 0;
    long firstAddMs = -1;
    int launchedBeforeBurst = -1;
    for (long t = T0; t <= T0 + 20 * 60 * S; t += 10 * S) {
      scheduler.runUntil(t);
      if (t == T0 + 60 * S) {
        launchedBeforeBurst = pool.launched;
        pool.add(60);
        scheduler.runDue();
      }
      if (firstAddMs < 0 && launchedBeforeBurst >= 0 && pool.launched > launchedBeforeBurst) {
        firstAddMs = t - T0;
      }
      GroupMetrics m = keepers.show(G).orElseThrow().metrics();
      peakInstances = Math.max(peakInstances, pool.instances.size());
      timeline.add(String.format("t=%4ds planned=%2d busy=%2d effective=%2d instances=%d draining=%d", (t - T0) / S,
          pool.planned.size(), pool.busy(), m.effectiveThreads(), pool.instances.size(), m.drainingInstances()));
    }
    timeline.forEach(System.out::println);

    assertThat(pool.completions).hasSize(60).allSatisfy((task, n) -> assertThat(n).as("task %d", task).isEqualTo(1));
    assertThat(firstAddMs).as("first demand-driven add at the backlog timeout").isEqualTo(120 * S);
    assertThat(peakInstances).isGreaterThan(2).isLessThanOrEqualTo(6);
    assertThat(pool.instances).hasSize(1);
    assertThat(keepers.show(G).orElseThrow().metrics().effectiveThreads()).isEqualTo(2);
    assertThat(keepers.show(G).orElseThrow().metrics().scaleDownStarts()).isEqualTo(peakInstances - 1);
  }

  @Test
  void aProviderThatStartsInstancesLateNeverHoldsMoreThanMaxParallelism() {
    // Every other instance starts 4 min after its request (after the 3-min boot deadline), the others in 15 s.
    Pool pool = new Pool(n -> n % 2 == 1 ? 4 * 60 * S : BOOT_MS);
    keep(pool, "dynamic-allocation.scheduler-backlog-timeout", "10s", "dynamic-allocation.sustained-backlog-timeout", "10s");
    pool.add(400);
    for (long t = T0; t <= T0 + 60 * 60 * S; t += 10 * S) {
      scheduler.runUntil(t);
      assertThat(pool.held.values().stream().mapToInt(Integer::intValue).sum()).as("held at t=%ds", (t - T0) / S)
          .isLessThanOrEqualTo(12);
    }
    assertThat(pool.peakHeldThreads).isLessThanOrEqualTo(12);
    assertThat(pool.launched).as("expired requests were replaced").isGreaterThan(6);
    assertThat(pool.completions).hasSize(400).allSatisfy((task, n) -> assertThat(n).as("task %d", task).isEqualTo(1));
  }
}
