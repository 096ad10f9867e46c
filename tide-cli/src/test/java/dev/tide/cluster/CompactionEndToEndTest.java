package dev.tide.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tide.common.config.Config;
import dev.tide.common.store.VersionDeltas;
import dev.tide.meta.MetaOptions;
import dev.tide.meta.store.ObsoleteSstRecord;
import dev.tide.optimizer.workload.CompactionPlanner;
import dev.tide.optimizer.workload.OptimizingQueue;
import dev.tide.optimizer.workload.WorkloadOptions;
import dev.tide.optimizer.worker.OptimizerInstance;
import dev.tide.proto.plan.JobDefinition;
import dev.tide.proto.store.SstInfo;
import dev.tide.proto.store.StoreVersion;
import dev.tide.sql.NexmarkJobs;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Real in-process optimizers compact an embedded cluster running Nexmark q5: L0 shrinks, the version
 * gains L1 SSTs, obsolete SST objects are deleted, every accepted task result is counted once, and the
 * view still equals the reference.
 */
class CompactionEndToEndTest {
  static final int L0_TRIGGER = 4;

  /** The test stream, rate-limited so that it writes L0 files over many barriers (unthrottled, it may fit in one). */
  static Map<String, String> overManyBarriers() {
    Map<String, String> o = new HashMap<>(NexmarkEndToEndTest.options());
    o.put("rate", "4000");
    return o;
  }

  @Test
  void optimizersCompactWhileTheQueryRunsAndTheViewStaysCorrect(@TempDir Path dir) {
    Config config = NexmarkEndToEndTest.fastBarriers()
        .with(WorkloadOptions.L0_FILES, L0_TRIGGER)
        .with(WorkloadOptions.TASK_INPUT_BYTES, 8L << 10) // several vnode-range tasks per table
        .with(WorkloadOptions.DELETE_GRACE, Duration.ofMillis(500)).with(OptimizerGroups.CREATE_DEFAULT_GROUP, false);
    try (LocalCluster cluster = new LocalCluster(dir, config, 2, 2)) {
      List<OptimizerInstance> optimizers = cluster.startOptimizers("default", 2, 2);
      JobDefinition job = cluster.submit(NexmarkJobs.plan("q5", overManyBarriers()));
      Map<Long, SstInfo> seen = new HashMap<>();
      int[] maxL0 = {0};
      await().atMost(Duration.ofMinutes(3)).pollInterval(Duration.ofMillis(100)).until(() -> {
        StoreVersion v = cluster.meta().committedVersion();
        VersionDeltas.allSsts(v).forEach(s -> seen.put(s.getId(), s));
        maxL0[0] = Math.max(maxL0[0], v.getL0().getSstsCount());
        return cluster.sourcesDone(job);
      });

      // Sources are done: no new L0 SSTs; compaction drains every table below its trigger.
      await().atMost(Duration.ofMinutes(2)).pollInterval(Duration.ofMillis(100)).until(() -> {
        StoreVersion v = cluster.meta().committedVersion();
        VersionDeltas.allSsts(v).forEach(s -> seen.put(s.getId(), s));
        return cluster.optimizing().stats().compactionsCommitted() > 0
            && CompactionPlanner.l0Stats(v).values().stream().allMatch(s -> s.files() < L0_TRIGGER);
      });
      StoreVersion end = cluster.meta().committedVersion();
      // Not "L0 shrank": with a fast job the sources may finish before L0 ever peaks above the end state.
      assertThat(CompactionPlanner.l0Stats(end).values()).allMatch(l0 -> l0.files() < L0_TRIGGER);
      assertThat(end.getLevelsCount()).isGreaterThan(0);
      assertThat(end.getLevels(0).getSstsList()).isNotEmpty().allMatch(s -> s.getTableIdsCount() == 1);

      // Obsolete SSTs go away once readers moved past them; every SST of the version is still there.
      Set<Long> live = VersionDeltas.allSsts(end).stream().map(SstInfo::getId).collect(Collectors.toSet());
      List<SstInfo> obsolete = seen.values().stream().filter(s -> !live.contains(s.getId())).toList();
      // (Compaction inputs may come and go between two polls, so `obsolete` can miss some; the service counts them all.)
      await().atMost(Duration.ofMinutes(1)).pollInterval(Duration.ofMillis(100)).until(() -> cluster.optimizing().deletedSsts() > 0);
      await().atMost(Duration.ofMinutes(1)).pollInterval(Duration.ofMillis(100))
          .until(() -> obsolete.stream().noneMatch(s -> cluster.objects().exists(s.getObjectPath())));
      assertThat(VersionDeltas.allSsts(end)).allMatch(s -> cluster.objects().exists(s.getObjectPath()));
      assertThat(cluster.optimizing().deletedSsts()).isGreaterThanOrEqualTo(obsolete.size());

      // Every task result meta accepted is one an optimizer saw accepted: nothing completed twice.
      OptimizingQueue.Stats stats = cluster.optimizing().stats();
      long accepted = optimizers.stream().mapToLong(OptimizerInstance::completedTasks).sum();
      assertThat(stats.tasksSucceeded()).isEqualTo(accepted);
      assertThat(stats.tasksSucceeded()).isGreaterThanOrEqualTo(stats.compactionsCommitted());
      assertThat(stats.compactionsAbandoned()).isZero();

      List<List<Object>> expected = NexmarkEndToEndTest.reference("q5");
      assertThat(expected).isNotEmpty();
      assertThat(NexmarkEndToEndTest.sorted(cluster.scan("q5"))).containsExactlyElementsOf(expected);
      System.out.printf("q5 compaction: max L0 %d, final L0 %d, L1 %d SSTs; %s; %d obsolete SSTs deleted%n", maxL0[0],
          end.getL0().getSstsCount(), end.getLevels(0).getSstsCount(), stats, cluster.optimizing().deletedSsts());
    }
  }

  @Test
  void optimizersRegisterAgainAfterAMetaRestartAndCompactionResumes(@TempDir Path dir) {
    Config config = NexmarkEndToEndTest.fastBarriers().with(WorkloadOptions.L0_FILES, L0_TRIGGER)
        .with(WorkloadOptions.DELETE_GRACE, Duration.ofMillis(500)).with(OptimizerGroups.CREATE_DEFAULT_GROUP, false);
    try (LocalCluster cluster = new LocalCluster(dir, config, 2, 2)) {
      List<OptimizerInstance> optimizers = cluster.startOptimizers("default", 2, 1);
      JobDefinition job = cluster.submit(NexmarkJobs.plan("q5", overManyBarriers()));
      await().atMost(Duration.ofMinutes(2)).pollInterval(Duration.ofMillis(50))
          .until(() -> cluster.optimizing().stats().compactionsCommitted() >= 1);

      // Obsolete SSTs the old meta has not deleted yet: the new run deletes them (they are recorded with their commit).
      List<SstInfo> pendingDeletion = cluster.meta().compactionCommitter().obsoleteSsts().stream().map(ObsoleteSstRecord::sst).toList();
      cluster.restartMeta(); // tasks in flight are lost with the old meta; their late results are refused
      await().atMost(Duration.ofMinutes(1)).pollInterval(Duration.ofMillis(100))
          .until(() -> cluster.optimizing().instances("default").size() == 2);
      assertThat(optimizers).allMatch(o -> cluster.optimizing().instances("default").stream()
          .anyMatch(i -> i.instanceId().equals(o.instanceId())));
      await().atMost(Duration.ofMinutes(3)).pollInterval(Duration.ofMillis(100)).until(() -> cluster.sourcesDone(job));
      await().atMost(Duration.ofMinutes(2)).pollInterval(Duration.ofMillis(100))
          .until(() -> cluster.optimizing().stats().compactionsCommitted() >= 1);

      StoreVersion end = cluster.meta().committedVersion();
      assertThat(VersionDeltas.allSsts(end)).allMatch(s -> cluster.objects().exists(s.getObjectPath()));
      assertThat(NexmarkEndToEndTest.sorted(cluster.scan("q5"))).containsExactlyElementsOf(NexmarkEndToEndTest.reference("q5"));
      await().atMost(Duration.ofMinutes(1)).pollInterval(Duration.ofMillis(100))
          .until(() -> pendingDeletion.stream().noneMatch(s -> cluster.objects().exists(s.getObjectPath())));
      System.out.printf("meta restart: %d obsolete SSTs the old run had not deleted were deleted by the new run%n", pendingDeletion.size());
    }
  }
}
