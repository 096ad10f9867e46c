package dev.tide.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tide.common.config.Config;
import dev.tide.meta.MetaOptions;
import dev.tide.meta.RescheduleRequest;
import dev.tide.meta.scale.Intent;
import dev.tide.meta.scale.JobIntent;
import dev.tide.proto.plan.JobDefinition;
import dev.tide.sql.NexmarkJobs;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The embedded cluster with {@link LocalCluster#REMOTE_EXCHANGE}: every node has its own channels and
 * serves stream and exchange services on a loopback port, so actors on different nodes exchange over
 * gRPC as separate processes do. Online rescales add and drop actors across nodes mid-run, a node
 * crash breaks live links into recovery, the view equals the reference, and a dropped job leaves no
 * link or channel on any node.
 */
class RemoteExchangeClusterTest {
  @Test
  void rescaleAndCrashAcrossNodesKeepTheViewAndLeaveNoLinks(@TempDir Path dir) {
    Config config = NexmarkEndToEndTest.fastBarriers().with(LocalCluster.REMOTE_EXCHANGE, true)
        .with(MetaOptions.SETTLE_DELAY, Duration.ofMillis(200));
    Map<String, String> options = new HashMap<>(NexmarkEndToEndTest.options());
    options.put("rate", "5000");
    try (LocalCluster cluster = new LocalCluster(dir, config, 3, 2)) {
      JobDefinition job = cluster.submit(NexmarkJobs.plan("q5", options));
      afterBarriers(cluster, 3);
      assertThat(cluster.nodes()).anyMatch(n -> !n.compute().remoteLinks().isEmpty());

      cluster.meta().reschedule(RescheduleRequest.scale(job.getName(), new JobIntent(new Intent.Fixed(2), new TreeMap<>())));
      afterBarriers(cluster, 3);
      cluster.meta().reschedule(RescheduleRequest.scale(job.getName(), new JobIntent(new Intent.Fixed(5), new TreeMap<>())));
      afterBarriers(cluster, 3);
      long recoveries = cluster.meta().stats().recoveries();
      cluster.crash(2);
      await().atMost(Duration.ofMinutes(1)).until(() -> cluster.meta().stats().recoveries() > recoveries);
      cluster.meta().reschedule(RescheduleRequest.scale(job.getName(), new JobIntent(new Intent.Fixed(3), new TreeMap<>())));

      await().atMost(Duration.ofMinutes(3)).pollInterval(Duration.ofMillis(100)).until(() -> cluster.sourcesDone(job));
      assertThat(NexmarkEndToEndTest.sorted(cluster.scan("q5"))).containsExactlyElementsOf(NexmarkEndToEndTest.reference("q5"));

      cluster.meta().dropJob(job.getName());
      LocalCluster.Node crashed = cluster.nodes().get(2);
      await().atMost(Duration.ofMinutes(1)).until(() -> cluster.nodes().stream().filter(n -> n != crashed)
          .allMatch(n -> n.compute().actorCount() == 0 && n.compute().remoteLinks().isEmpty()
              && n.compute().inboundLinkCount() == 0 && n.compute().channelCount() == 0));
    }
  }

  private static void afterBarriers(LocalCluster cluster, int n) {
    long target = cluster.meta().stats().committedBarriers() + n;
    await().atMost(Duration.ofMinutes(1)).until(() -> cluster.meta().stats().committedBarriers() >= target);
  }
}
