package dev.tide.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tide.common.time.Clock;
import dev.tide.meta.ClusterSnapshot;
import dev.tide.meta.RescheduleRequest;
import dev.tide.meta.ScalingController;
import dev.tide.meta.ScalingPolicy;
import dev.tide.meta.scale.Intent;
import dev.tide.meta.scale.JobIntent;
import dev.tide.proto.plan.JobDefinition;
import dev.tide.stream.queries.NexmarkQueries;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PauseAndPolicyTest {
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
      JobDefinition job = cluster.submit(NexmarkQueries.plan("q0", Map.of("rate", "3000")));
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

  @Test
  void policyRequestsTakeTheSamePathAsPeople(@TempDir Path dir) {
    try (LocalCluster cluster = new LocalCluster(dir, NexmarkEndToEndTest.fastBarriers(), 2, 2)) {
      cluster.submit(NexmarkQueries.plan("q5", Map.of("rate", "2000")));
      List<ClusterSnapshot> seen = new ArrayList<>();
      ScalingPolicy shrink = (snapshot, now) -> {
        seen.add(snapshot);
        boolean wide = snapshot.jobs().get("q5").layout().fragments().values().stream().anyMatch(a -> a.size() > 1);
        return wide ? List.of(RescheduleRequest.scale("q5", new JobIntent(new Intent.Fixed(1), new TreeMap<>()))) : List.of();
      };
      try (ScalingController controller = new ScalingController(cluster.meta(), shrink, Clock.SYSTEM)) {
        assertThat(controller.round()).isEqualTo(1);
        await().until(() -> !cluster.meta().snapshot().jobs().get("q5").rescheduling());
        assertThat(cluster.meta().layout("q5").fragments().values()).allSatisfy(a -> assertThat(a).hasSize(1));
        assertThat(controller.round()).isZero();
        assertThat(seen).hasSize(2);
      }
      // The timeline shows what the policy did, and what it was refused.
      assertThat(cluster.meta().events().since(0)).anySatisfy(e -> {
        assertThat(e.kind()).isEqualTo("reschedule");
        assertThat(e.subject()).isEqualTo("q5");
      });
      ScalingPolicy unknown = (snapshot, now) -> List.of(RescheduleRequest.scale("nope", new JobIntent(new Intent.Fixed(1), new TreeMap<>())));
      try (ScalingController controller = new ScalingController(cluster.meta(), unknown, Clock.SYSTEM)) {
        assertThat(controller.round()).isZero();
      }
      assertThat(cluster.meta().events().since(0)).anySatisfy(e -> {
        assertThat(e.kind()).isEqualTo("autoscaler");
        assertThat(e.reason()).contains("refused").contains("nope");
      });
    }
  }
}
