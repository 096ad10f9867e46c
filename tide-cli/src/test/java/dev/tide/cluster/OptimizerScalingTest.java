package dev.tide.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tide.common.config.Config;
import dev.tide.common.time.Clock;
import dev.tide.meta.optimize.OptimizingService;
import dev.tide.optimizer.dra.GroupMetrics;
import dev.tide.optimizer.group.GroupConfig;
import dev.tide.optimizer.group.GroupDefinition;
import dev.tide.optimizer.keeper.GroupKeepers;
import dev.tide.optimizer.keeper.GroupView;
import dev.tide.optimizer.keeper.KeeperAction;
import dev.tide.optimizer.provider.InProcessProvider;
import dev.tide.optimizer.provider.LocalProcessProvider;
import dev.tide.optimizer.workload.CompactionPlanner;
import dev.tide.optimizer.workload.OptimizingQueue;
import dev.tide.optimizer.workload.WorkloadOptions;
import dev.tide.optimizer.worker.OptimizerInstance;
import dev.tide.proto.plan.JobDefinition;
import dev.tide.proto.store.StoreVersion;
import dev.tide.stream.nexmark.NexmarkConfig;
import dev.tide.stream.nexmark.NexmarkReference;
import dev.tide.sql.NexmarkJobs;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The scale keeper sizes a real optimizer group to a burst of writes: Nexmark q5 fills L0 faster than
 * the floor's one optimizer thread compacts it, the keeper scales the group up (no optimizer is started
 * by hand), compaction catches up, and the group drains back to its floor once idle. No task is lost or
 * completed twice, and the view equals the reference. Prints the per-second timeline.
 */
class OptimizerScalingTest {
  static final int L0_TRIGGER = 4;

  /** A group of {@code min} to 6 one-thread instances with short backlog timers and the shortest idle timeout. */
  static GroupDefinition burstGroup(String provider, int min) {
    return GroupDefinition.of("default", provider, Map.of(
        GroupConfig.ENABLED.key(), "true",
        GroupConfig.MIN_PARALLELISM.key(), String.valueOf(min),
        GroupConfig.MAX_PARALLELISM.key(), "6",
        GroupConfig.EXECUTOR_PARALLELISM.key(), "1",
        GroupConfig.SCHEDULER_BACKLOG_TIMEOUT.key(), "1s",
        GroupConfig.SUSTAINED_BACKLOG_TIMEOUT.key(), "1s",
        GroupConfig.EXECUTOR_IDLE_TIMEOUT.key(), "30s",
        GroupConfig.SCALE_DOWN_COOLDOWN.key(), "1s",
        GroupConfig.MAX_PLANNING_PARALLELISM.key(), "4")); // tables plan in parallel: the demand is tasks, not planning
  }

  /** Events of the burst: enough that writing them outlasts an optimizer JVM's start on a busy machine. */
  static final long BURST_EVENTS = 100_000;

  /**
   * The burst, at 25,000 events/s: it spans dozens of barriers, so every table's L0 passes the trigger
   * however fast the engine (unthrottled, it can fit in a few barriers and never trigger compaction).
   */
  static Map<String, String> burstOptions() {
    Map<String, String> o = new java.util.HashMap<>(NexmarkEndToEndTest.options());
    o.put("events", String.valueOf(BURST_EVENTS));
    o.put("rate", "25000");
    return o;
  }

  static List<List<Object>> burstReference() {
    NexmarkConfig cfg = NexmarkConfig.defaults().withSeed(NexmarkEndToEndTest.SEED).withEventsPerSecond(NexmarkEndToEndTest.EVENT_TIME_RATE);
    return NexmarkReference.query("q5", cfg, BURST_EVENTS);
  }

  static Config burstConfig() {
    return NexmarkEndToEndTest.fastBarriers()
        .with(WorkloadOptions.L0_FILES, L0_TRIGGER)
        .with(WorkloadOptions.TASK_INPUT_BYTES, 8L << 10) // several vnode-range tasks per table: demand above one thread
        .with(WorkloadOptions.DELETE_GRACE, Duration.ofMillis(500))
        .with(OptimizerGroups.CREATE_DEFAULT_GROUP, false);
  }

  /** One line per second: demand (planned + executing tasks), effective threads, instances, L0 SSTs, last decision. */
  static final class Timeline implements AutoCloseable {
    final List<String> lines = new ArrayList<>();
    final List<GroupMetrics> samples = new ArrayList<>();
    private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor();
    private final long start = System.nanoTime();

    Timeline(GroupKeepers groups, Supplier<Integer> l0) {
      timer.scheduleAtFixedRate(() -> {
        GroupView v = groups.show("default").orElseThrow();
        GroupMetrics m = v.metrics();
        synchronized (this) {
          samples.add(m);
          lines.add(String.format("t=%3ds demand %2d (planned %2d, executing %2d) effective-threads %d instances %d draining %d L0 %3d | %s",
              (System.nanoTime() - start) / 1_000_000_000L, m.pendingTasks() + m.executingTasks(), m.pendingTasks(), m.executingTasks(),
              m.effectiveThreads(), m.instances(), m.drainingInstances(), l0.get(), v.lastDecision()));
        }
      }, 0, 1, TimeUnit.SECONDS);
    }

    synchronized int maxInstances() {
      return samples.stream().mapToInt(GroupMetrics::instances).max().orElse(0);
    }

    synchronized void print(String title) {
      System.out.println("--- timeline: " + title);
      lines.forEach(System.out::println);
    }

    @Override
    public void close() {
      timer.shutdownNow();
    }
  }

  /**
   * In-process optimizers compact a burst faster than any backlog timer on an idle machine, so this
   * group's floor is 0: nothing compacts until the keeper acts, which makes the scale-up certain
   * (cold start: PENDING tables and no thread add an instance once the backlog timer has passed) and
   * the scale-down too (the last instance drains once idle).
   */
  @Test
  void inProcessGroupScalesUpFromAnEmptyFloorForABurstAndDrainsBackToIt(@TempDir Path dir) {
    try (LocalCluster cluster = new LocalCluster(dir, burstConfig(), 2, 2)) {
      GroupKeepers groups = cluster.groups();
      groups.create(burstGroup(InProcessProvider.NAME, 0));
      try (Timeline timeline = new Timeline(groups, () -> cluster.meta().committedVersion().getL0().getSstsCount())) {
        JobDefinition job = cluster.submit(NexmarkJobs.plan("q5", burstOptions()));
        // The keeper, not the test, adds instances: one registers once the burst's backlog outlasted its timer.
        await().atMost(Duration.ofMinutes(3)).pollInterval(Duration.ofMillis(200)).until(() -> timeline.maxInstances() > 0);
        await().atMost(Duration.ofMinutes(3)).pollInterval(Duration.ofMillis(200)).until(() -> cluster.sourcesDone(job));
        // Compaction catches up: every table below its trigger, nothing planned or running.
        await().atMost(Duration.ofMinutes(2)).pollInterval(Duration.ofMillis(200)).until(() -> {
          GroupMetrics m = groups.show("default").orElseThrow().metrics();
          return CompactionPlanner.l0Stats(cluster.meta().committedVersion()).values().stream().allMatch(s -> s.files() < L0_TRIGGER)
              && m.pendingTasks() == 0 && m.executingTasks() == 0;
        });
        // Idle for the idle timeout, the group drains one instance per cooldown down to its floor.
        await().atMost(Duration.ofMinutes(3)).pollInterval(Duration.ofMillis(500))
            .until(() -> cluster.optimizing().instances("default").isEmpty()
                && groups.show("default").orElseThrow().metrics().effectiveThreads() == 0);
        timeline.print("in-process provider, q5 burst");
        assertThat(groups.show("default").orElseThrow().recentActions()).extracting(KeeperAction::reason)
            .anyMatch(r -> r.startsWith("scale-up") || r.startsWith("probe")).anyMatch(r -> r.startsWith("scale-down"));
      }
      await().atMost(Duration.ofMinutes(2)).pollInterval(Duration.ofMillis(200))
          .until(() -> cluster.optimizing().stats().tasksSucceeded() == cluster.optimizing().stats().tasksPlanned());
      List<OptimizerInstance> launched = cluster.launchedOptimizers();
      assertThat(launched).isNotEmpty();
      OptimizingQueue.Stats stats = cluster.optimizing().stats();
      // Nothing completed twice: every result meta accepted is one an optimizer saw accepted.
      assertThat(stats.tasksSucceeded()).isEqualTo(launched.stream().mapToLong(OptimizerInstance::completedTasks).sum());
      // Nothing lost: every planned task ended SUCCESS (reclaimed ones ran again), no compaction abandoned.
      assertThat(stats.tasksSucceeded()).isEqualTo(stats.tasksPlanned()).isPositive();
      assertThat(stats.compactionsAbandoned()).isZero();
      assertThat(NexmarkEndToEndTest.sorted(cluster.scan("q5"))).containsExactlyElementsOf(burstReference());
      System.out.println("in-process scaling: launched " + launched.size() + " optimizers; " + stats);
    }
  }

  /**
   * The same burst on a meta process's loopback port (meta and two compute nodes in this JVM): the
   * {@code local} provider scales the group with real {@code tide optimizer} child processes. From a
   * floor of 0 for the same reason as above; while the first process boots and then plans, the
   * backlog usually outlasts the sustained timer and more processes follow (the timeline shows them).
   */
  @Test
  void localProviderScalesWithOptimizerProcesses(@TempDir Path dir) {
    Config config = burstConfig().with(ProcessOptions.DATA_DIR, dir.toString()).with(ProcessOptions.META_LISTEN, "127.0.0.1:0")
        .with(ProcessOptions.META_HTTP_PORT, -1);
    List<ComputeServer> computes = new ArrayList<>();
    try (MetaServer meta = MetaServer.start(config, Optional.empty(), Clock.SYSTEM)) {
      Config computeConfig = config.with(ProcessOptions.COMPUTE_META, "127.0.0.1:" + meta.grpcPort());
      for (int i = 0; i < 2; i++) {
        computes.add(ComputeServer.start(computeConfig, Optional.empty(), Clock.SYSTEM));
      }
      OptimizingService optimizing = meta.optimizerGroups().optimizing();
      GroupKeepers groups = meta.optimizerGroups().keepers();
      groups.create(burstGroup(LocalProcessProvider.NAME, 0));
      CommittedViews views = new CommittedViews(meta::meta, ProcessOptions.objectStore(config));
      try (Timeline timeline = new Timeline(groups, () -> meta.meta().committedVersion().getL0().getSstsCount())) {
        JobDefinition job = JobGrpcService.submit(meta.meta(), config, NexmarkJobs.plan("q5", burstOptions()));
        await().atMost(Duration.ofMinutes(4)).pollInterval(Duration.ofMillis(200)).until(() -> timeline.maxInstances() > 0);
        await().atMost(Duration.ofMinutes(3)).pollInterval(Duration.ofMillis(200)).until(() -> views.sourcesDone(job));
        await().atMost(Duration.ofMinutes(2)).pollInterval(Duration.ofMillis(200)).until(() -> {
          GroupMetrics m = groups.show("default").orElseThrow().metrics();
          return CompactionPlanner.l0Stats(meta.meta().committedVersion()).values().stream().allMatch(s -> s.files() < L0_TRIGGER)
              && m.pendingTasks() == 0 && m.executingTasks() == 0;
        });
        await().atMost(Duration.ofMinutes(3)).pollInterval(Duration.ofMillis(500))
            .until(() -> optimizing.instances("default").isEmpty()
                && groups.show("default").orElseThrow().metrics().effectiveThreads() == 0);
        timeline.print("local provider (tide optimizer processes), q5 burst");
        assertThat(groups.show("default").orElseThrow().recentActions()).extracting(KeeperAction::reason)
            .anyMatch(r -> r.startsWith("scale-up") || r.startsWith("probe")).anyMatch(r -> r.startsWith("scale-down"));
      }
      // Each planned task succeeds exactly once (a second completion of a task is refused), none abandoned. The keeper's
      // metrics above come from its last round, so a task planned since may still be running: wait for it.
      await().atMost(Duration.ofMinutes(2)).pollInterval(Duration.ofMillis(200))
          .until(() -> optimizing.stats().tasksSucceeded() == optimizing.stats().tasksPlanned());
      OptimizingQueue.Stats stats = optimizing.stats();
      assertThat(stats.tasksSucceeded()).isEqualTo(stats.tasksPlanned()).isPositive();
      assertThat(stats.compactionsAbandoned()).isZero();
      assertThat(NexmarkEndToEndTest.sorted(views.scan("q5"))).containsExactlyElementsOf(burstReference());
      System.out.println("local-provider scaling: " + stats);
    } finally {
      computes.forEach(ComputeServer::close);
    }
  }
}
