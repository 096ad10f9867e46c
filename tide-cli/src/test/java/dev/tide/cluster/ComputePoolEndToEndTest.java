package dev.tide.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tide.cli.ctl.AdminServer;
import dev.tide.cli.ctl.CtlCommandTest;
import dev.tide.cli.ctl.CtlCommandTest.Run;
import dev.tide.common.config.Config;
import dev.tide.meta.pool.PoolGrpcService;
import dev.tide.meta.RescheduleRequest;
import dev.tide.meta.core.MetaCore;
import dev.tide.meta.pool.ComputePool;
import dev.tide.meta.pool.ComputePoolOptions;
import dev.tide.meta.scale.Intent;
import dev.tide.optimizer.keeper.KeeperAction;
import dev.tide.proto.plan.JobDefinition;
import dev.tide.sql.NexmarkJobs;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The compute pool on the embedded cluster (in-process provider): a job wants more slots than the one
 * node has → the pool launches a node and the job's actors use it → the job is scaled back in → the
 * launched node's slots go unneeded for the idle timeout → it is drained (its actors migrate off
 * online), leaves and is released. The view equals the reference: nothing lost, nothing twice.
 */
class ComputePoolEndToEndTest {

  static Config poolConfig() {
    return NexmarkEndToEndTest.fastBarriers().with(ComputePoolOptions.PROVIDER, "in-process").with(ComputePoolOptions.NODE_SLOTS, 2)
        .with(ComputePoolOptions.MAX_SLOTS, 6).with(ComputePoolOptions.BACKLOG_TIMEOUT, Duration.ofMillis(500))
        .with(ComputePoolOptions.SUSTAINED_TIMEOUT, Duration.ofMillis(500)).with(ComputePoolOptions.IDLE_TIMEOUT, Duration.ofSeconds(30))
        .with(ComputePoolOptions.SCALE_DOWN_COOLDOWN, Duration.ofSeconds(1));
  }

  @Test
  void slotsRunOutSoANodeIsAddedAndUsedThenDrainedAndReleased(@TempDir Path dir) {
    try (LocalCluster cluster = new LocalCluster(dir, poolConfig(), 1, 2)) {
      ComputePool pool = cluster.computePool().orElseThrow();
      Map<String, String> options = new HashMap<>(NexmarkEndToEndTest.options());
      options.put("rate", "1000"); // 20,000 events over 20 s: the job runs through both pool actions
      JobDefinition job = cluster.submit(NexmarkJobs.plan("q5", options));
      cluster.meta().reschedule(RescheduleRequest.scaleJob("q5", new Intent.Fixed(4), false));

      io.micrometer.core.instrument.simple.SimpleMeterRegistry meters = new io.micrometer.core.instrument.simple.SimpleMeterRegistry();
      pool.bindMetrics(meters);
      await().atMost(Duration.ofMinutes(1)).until(() -> launchedHosting(cluster) > 0);
      assertThat(meters.get("tide.compute.pool.wanted.slots").gauge().value()).isEqualTo(4);
      assertThat(meters.get("tide.compute.pool.launched.nodes").gauge().value()).isEqualTo(1);
      assertThat(pool.view().recentActions()).extracting(KeeperAction::reason).anySatisfy(r -> assertThat(r).startsWith("scale-up 1"));
      try (AdminServer admin = AdminServer.start(0, cluster.meta(), slots -> 0,
          new PoolGrpcService(cluster::computePool, cluster.meta()::workerHealth))) {
        Run show = CtlCommandTest.tide("ctl", "pool", "show", "--meta", admin.address());
        assertThat(show.exitCode()).as(show.err()).isZero();
        assertThat(show.out()).startsWith("compute pool on provider in-process: jobs want 4 slots, active nodes offer 4")
            .containsPattern("\\n +2 +active +2 +2 +compute-\\d+-0\\n").contains("scale-up 1 node: need 2 slots");
      }

      cluster.meta().reschedule(RescheduleRequest.scaleJob("q5", new Intent.Fixed(1), false));
      await().atMost(Duration.ofMinutes(2)).until(() -> pool.view().resources().isEmpty() && launched(cluster).isEmpty());
      List<String> actions = pool.view().recentActions().stream().map(KeeperAction::reason).toList();
      assertThat(actions).anySatisfy(r -> assertThat(r).startsWith("scale-down: drain worker-"))
          .anySatisfy(r -> assertThat(r).startsWith("remove worker-"));

      await().atMost(Duration.ofMinutes(2)).until(() -> cluster.sourcesDone(job));
      assertThat(NexmarkEndToEndTest.sorted(cluster.scan("q5"))).containsExactlyElementsOf(NexmarkEndToEndTest.reference("q5"));
      assertThat(cluster.meta().stats().recoveries()).as("no recovery: the drain migrated the actors online").isZero();
    }
  }

  @Test
  void severalLaunchedNodesDrainOneAfterAnotherWhileAdaptiveJobsFollowTheSlots(@TempDir Path dir) {
    Config config = poolConfig().with(ComputePoolOptions.MAX_SLOTS, 8);
    try (LocalCluster cluster = new LocalCluster(dir, config, 1, 2)) {
      ComputePool pool = cluster.computePool().orElseThrow();
      Map<String, String> options = unbounded();
      cluster.submit(NexmarkJobs.plan("q5", options));
      cluster.submit(NexmarkJobs.plan("q7", options)); // adaptive: its actors spread onto every node that joins
      cluster.meta().reschedule(RescheduleRequest.scaleJob("q5", new Intent.Fixed(8), false));
      await().atMost(Duration.ofMinutes(1)).until(() -> launched(cluster).size() == 3);
      cluster.meta().reschedule(RescheduleRequest.scaleJob("q5", dev.tide.meta.scale.Intent.adaptive(), false));
      await().atMost(Duration.ofMinutes(3)).conditionEvaluationListener(c -> {
        if (c.getRemainingTimeInMS() < 1000) {
          System.out.println("pool: " + pool.view().lastDecision() + "\nworkers: " + cluster.meta().workerHealth());
        }
      }).until(() -> launched(cluster).isEmpty() && pool.view().resources().isEmpty());
      assertThat(pool.view().recentActions()).extracting(KeeperAction::reason).filteredOn(r -> r.startsWith("remove worker-")).hasSize(3);
      assertThat(cluster.meta().stats().recoveries()).isZero();
    }
  }

  /**
   * A person drains a node the pool launched ({@code tide ctl worker drain}): the pool adopts the drain, releases the
   * node's resource once it left (before, a resource it no longer knew was kept until its boot deadline, and released
   * then even if the node was still draining), and launches a node to replace the slots the jobs still want.
   */
  @Test
  void aPersonsDrainOfALaunchedNodeEndsInItsReleaseAndTheSlotsAreReplaced(@TempDir Path dir) {
    Config config = poolConfig().with(ComputePoolOptions.BOOT_DEADLINE, Duration.ofMinutes(10));
    try (LocalCluster cluster = new LocalCluster(dir, config, 1, 2)) {
      ComputePool pool = cluster.computePool().orElseThrow();
      Map<String, String> options = unbounded();
      cluster.submit(NexmarkJobs.plan("q5", options));
      cluster.meta().reschedule(RescheduleRequest.scaleJob("q5", new Intent.Fixed(4), false));
      await().atMost(Duration.ofMinutes(1)).until(() -> launchedHosting(cluster) > 0);
      MetaCore.WorkerHealth first = launched(cluster).get(0);

      cluster.meta().drainWorker(first.worker().id());
      await().atMost(Duration.ofMinutes(1)).conditionEvaluationListener(c -> {
        if (c.getRemainingTimeInMS() < 1000) {
          System.out.println("pool: " + pool.view().lastDecision() + "\nworkers: " + cluster.meta().workerHealth());
        }
      }).until(() -> pool.view().resources().stream().noneMatch(r -> r.resourceId().equals(first.resourceId()))
          && launchedHosting(cluster) > 0);
      assertThat(pool.view().recentActions()).extracting(KeeperAction::reason)
          .anySatisfy(r -> assertThat(r).startsWith("remove worker-" + first.worker().id() + ": drained"));
      assertThat(launched(cluster)).extracting(MetaCore.WorkerHealth::resourceId).doesNotContain(first.resourceId()).hasSize(1);
      assertThat(cluster.meta().stats().recoveries()).isZero();
    }
  }

  /** Source options of an unbounded stream of 1,000 events/s. */
  private static Map<String, String> unbounded() {
    Map<String, String> options = new HashMap<>(NexmarkEndToEndTest.options());
    options.put("rate", "1000");
    options.put("events", "-1");
    return options;
  }

  private static List<MetaCore.WorkerHealth> launched(LocalCluster cluster) {
    return cluster.meta().workerHealth().stream().filter(w -> !w.resourceId().isEmpty() && w.alive()).toList();
  }

  private static long launchedHosting(LocalCluster cluster) {
    return launched(cluster).stream().filter(w -> cluster.meta().snapshot().jobs().values().stream()
        .anyMatch(j -> j.layout().actorsPerWorker().containsKey(w.worker().id()))).count();
  }
}
