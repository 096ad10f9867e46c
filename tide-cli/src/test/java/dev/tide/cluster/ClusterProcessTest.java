package dev.tide.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.tide.meta.store.PostgresCluster;
import dev.tide.proto.admin.CreateJobRequest;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A real cluster of processes on loopback: {@code tide meta} and {@code tide compute} child JVMs.
 * Processes are killed with SIGKILL mid-run; the jobs recover and their views equal the reference.
 */
class ClusterProcessTest {
  /** Fast barriers and failure detection, so a test run stays short. */
  private static final List<String> FAST = List.of("--set", "barrier.interval=200ms", "--set", "heartbeat.interval=200ms",
      "--set", "heartbeat.timeout=3s", "--set", "scaling.settle-delay=1s");
  private static final Duration RESULT_GUARD = Duration.ofMinutes(4);

  private static CreateJobRequest job(String query, String rate) {
    Map<String, String> options = new HashMap<>(NexmarkEndToEndTest.options());
    options.put("rate", rate);
    return CreateJobRequest.newBuilder().setQuery(query).putAllSourceOptions(options).build();
  }

  private static void awaitView(ClusterProcesses cluster, String query) {
    List<List<String>> expected = ClusterProcesses.asText(NexmarkEndToEndTest.reference(query));
    assertThat(expected).isNotEmpty();
    try {
      await().atMost(RESULT_GUARD).pollInterval(Duration.ofMillis(500)).ignoreExceptions()
          .until(() -> cluster.scan(query).equals(expected));
    } catch (org.awaitility.core.ConditionTimeoutException e) {
      List<List<String>> got = cluster.scan(query);
      throw new AssertionError("view " + query + " never equalled the reference: " + got.size() + " rows, expected "
          + expected.size() + "\n" + cluster.logs(), e);
    }
  }

  private static void awaitEpochsPast(ClusterProcesses cluster, long epochs) {
    long start = cluster.status().getCommittedBarriers();
    await().atMost(RESULT_GUARD).pollInterval(Duration.ofMillis(200)).ignoreExceptions()
        .until(() -> cluster.status().getCommittedBarriers() >= start + epochs);
  }

  @Test
  void computeKilledMidRunRecoversOntoTheOthers(@TempDir Path dir) {
    try (ClusterProcesses cluster = new ClusterProcesses(dir, FAST)) {
      cluster.startMeta();
      List<TideProcess> computes = List.of(cluster.startCompute(2), cluster.startCompute(2), cluster.startCompute(2));
      cluster.jobs().create(job("q5", "4000"));
      cluster.jobs().create(job("q3", "4000"));
      awaitEpochsPast(cluster, 5);
      computes.get(1).kill();
      await().atMost(RESULT_GUARD).ignoreExceptions().until(() -> cluster.status().getRecoveries() >= 1);
      awaitView(cluster, "q5");
      awaitView(cluster, "q3");
      assertThat(cluster.status().getAliveWorkers()).isEqualTo(2);
    }
  }

  @Test
  void aComputeOnAnotherObjectStoreIsRefusedNamingBothAndTheFix(@TempDir Path dir) {
    try (ClusterProcesses cluster = new ClusterProcesses(dir, FAST)) {
      cluster.startMeta();
      Path elsewhere = dir.resolve("elsewhere");
      assertThatThrownBy(() -> cluster.startCompute(elsewhere, 1))
          .hasMessageContaining("compute's object store LocalObjectStore(" + elsewhere.resolve("objects") + ")")
          .hasMessageContaining("holds no cluster mark (cluster.id), but meta's belongs to cluster")
          .hasMessageContaining("Give compute meta's object store: the same --data-dir");
      cluster.startCompute(1); // the same data directory as meta: accepted
      assertThat(cluster.status().getAliveWorkers()).isEqualTo(1);
    }
  }

  @Test
  void computeStoppedWithSigtermIsDrainedWithoutARecoveryAndExitsZero(@TempDir Path dir) throws InterruptedException {
    try (ClusterProcesses cluster = new ClusterProcesses(dir, FAST)) {
      cluster.startMeta();
      List<TideProcess> computes = List.of(cluster.startCompute(2), cluster.startCompute(2), cluster.startCompute(2));
      cluster.jobs().create(job("q5", "4000"));
      awaitEpochsPast(cluster, 5);
      Process p = computes.get(1).process();
      p.destroy(); // SIGTERM, as systemd and Kubernetes send
      assertThat(p.waitFor(2, java.util.concurrent.TimeUnit.MINUTES)).as("the node exits after its drain").isTrue();
      assertThat(p.exitValue()).as("exit status\n" + computes.get(1).output()).isZero();
      assertThat(computes.get(1).output()).contains("leaving the cluster");
      awaitView(cluster, "q5");
      assertThat(cluster.status().getRecoveries()).as("recoveries").isZero();
      assertThat(cluster.status().getAliveWorkers()).isEqualTo(2);
    }
  }

  @Test
  void theComputePoolLaunchesALocalNodeWhenSlotsRunOutAndReleasesItOnceItsSlotsGoUnneeded(@TempDir Path dir) {
    List<String> pool = List.of("--set", "compute-pool.provider=local", "--set", "compute-pool.node-slots=2", "--set",
        "compute-pool.max-slots=4", "--set", "compute-pool.backlog-timeout=500ms", "--set", "compute-pool.sustained-timeout=500ms",
        "--set", "compute-pool.idle-timeout=30s", "--set", "compute-pool.scale-down-cooldown=1s");
    List<String> options = new java.util.ArrayList<>(FAST);
    options.addAll(pool);
    try (ClusterProcesses cluster = new ClusterProcesses(dir, FAST)) {
      cluster.startMeta(options.subList(FAST.size(), options.size()).toArray(String[]::new));
      cluster.startCompute(2);
      cluster.jobs().create(job("q5", "1000"));
      await().atMost(RESULT_GUARD).ignoreExceptions().until(() -> cluster.admin() // refused while the job's creation is in flight
          .scale(dev.tide.proto.admin.ScaleJobRequest.newBuilder().setJob("q5").setParallelism("4").build()) != null);
      // Slots run out (the job wants 4, the node has 2): meta starts a `tide compute` child, which registers and gets actors.
      await().atMost(RESULT_GUARD).ignoreExceptions().until(() -> cluster.pool().getNodesList().stream()
          .anyMatch(n -> !n.getResourceId().isEmpty() && n.getState().equals("active") && n.getWantedSlots() == 2));
      await().atMost(RESULT_GUARD).ignoreExceptions().until(() -> cluster.status().getWorkersList().stream()
          .filter(w -> w.getAlive() && w.getActors() > 0).count() == 2); // the joined node relieves the oversubscribed one
      // Meta refuses a reschedule while the migration onto the joined node is in flight (not yet committed): retry, as a user would.
      await().atMost(RESULT_GUARD).ignoreExceptions().until(() -> cluster.admin()
          .scale(dev.tide.proto.admin.ScaleJobRequest.newBuilder().setJob("q5").setParallelism("1").build()) != null);
      // Its slots unneeded for the idle timeout: drained (actors migrate off), told to leave, released.
      await().atMost(RESULT_GUARD).ignoreExceptions().until(() -> cluster.pool().getPool().getResourcesCount() == 0
          && cluster.pool().getNodesList().stream().noneMatch(n -> !n.getResourceId().isEmpty() && !n.getState().equals("left")));
      List<String> actions = cluster.pool().getPool().getRecentActionsList().stream().map(a -> a.getReason()).toList();
      assertThat(actions).as(cluster.logs())
          .anySatisfy(r -> assertThat(r).startsWith("scale-up 1 node: need 2 slots"))
          .anySatisfy(r -> assertThat(r).startsWith("scale-down: drain worker-"))
          .anySatisfy(r -> assertThat(r).startsWith("remove worker-"));
      awaitView(cluster, "q5");
      assertThat(cluster.status().getRecoveries()).as("recoveries").isZero();
    }
  }

  @Test
  void boundedJobCommitsWithoutWaitingForTheBarrierInterval(@TempDir Path dir) {
    // Barriers ten minutes apart, longer than the guard: only the barrier meta injects when it creates
    // the job and the ones the sources ask for when their input ends can bring the view to the reference.
    List<String> rareBarriers = List.of("--set", "barrier.interval=10min", "--set", "heartbeat.interval=200ms");
    try (ClusterProcesses cluster = new ClusterProcesses(dir, rareBarriers)) {
      cluster.startMeta();
      cluster.startCompute(2);
      cluster.startCompute(2);
      cluster.jobs().create(job("q8", "0"));
      awaitView(cluster, "q8");
    }
  }

  @Test
  void metaKilledAndRestartedOnItsSqliteFileResumesTheJob(@TempDir Path dir) {
    metaRestart(dir);
  }

  @Test
  void metaKilledAndRestartedOnPostgresResumesTheJob(@TempDir Path dir) throws Exception {
    try (PostgresCluster pg = PostgresCluster.start()) {
      metaRestart(dir, "--store", pg.createDatabase());
    }
  }

  private static void metaRestart(Path dir, String... metaArgs) {
    try (ClusterProcesses cluster = new ClusterProcesses(dir, FAST)) {
      TideProcess meta = cluster.startMeta(metaArgs);
      cluster.startCompute(2);
      cluster.startCompute(2);
      cluster.jobs().create(job("q5", "3000"));
      awaitEpochsPast(cluster, 5);
      long before = cluster.status().getCommittedEpoch();
      meta.kill();
      cluster.startMeta(metaArgs);
      await().atMost(RESULT_GUARD).ignoreExceptions().until(() -> cluster.status().getCommittedEpoch() > before);
      awaitView(cluster, "q5");
      assertThat(cluster.status().getRecoveries()).isGreaterThanOrEqualTo(1);
    }
  }
}
