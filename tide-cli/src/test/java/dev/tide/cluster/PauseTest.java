package dev.tide.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tide.proto.plan.JobDefinition;
import dev.tide.sql.NexmarkJobs;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PauseTest {
  static long emitted(LocalCluster cluster, JobDefinition job) {
    return cluster.sourceProgress(job).stream().mapToLong(CommittedViews.SourceProgress::emitted).sum();
  }

  void awaitCommits(LocalCluster cluster, int n) {
    long target = cluster.meta().stats().committedBarriers() + n;
    await().until(() -> cluster.meta().stats().committedBarriers() >= target);
  }

  @Test
  void pausedSourcesEmitNothingWhileBarriersFlow(@TempDir Path dir) {
    try (LocalCluster cluster = new LocalCluster(dir, NexmarkEndToEndTest.fastBarriers(), 2, 2)) {
      JobDefinition job = cluster.submit(NexmarkJobs.plan("q0", Map.of("rate", "3000")));
      await().until(() -> emitted(cluster, job) > 0);
      cluster.meta().setPaused("q0", true);
      awaitCommits(cluster, 2);
      long paused = emitted(cluster, job);
      awaitCommits(cluster, 3);
      assertThat(emitted(cluster, job)).as("progress while paused").isEqualTo(paused);
      cluster.meta().setPaused("q0", false);
      await().until(() -> emitted(cluster, job) > paused);
    }
  }
}
