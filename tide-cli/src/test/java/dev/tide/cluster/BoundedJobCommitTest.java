package dev.tide.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tide.common.config.Config;
import dev.tide.meta.MetaOptions;
import dev.tide.proto.plan.JobDefinition;
import dev.tide.sql.NexmarkJobs;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * With barriers ten minutes apart, a bounded job still runs and commits its result well before the
 * next periodic barrier: meta injects a new job's first barrier when it creates the job, and each
 * source actor asks for a barrier as soon as its input has ended, which commits its final offsets
 * and the view's last changes. Without either, the view would wait for the interval.
 */
class BoundedJobCommitTest {
  private static final Duration RARE_BARRIERS = Duration.ofMinutes(10);
  /** Guard for a loaded 2-core machine; well below the barrier interval, so only the barriers asked for can finish the job. */
  private static final Duration RESULT_GUARD = Duration.ofMinutes(3);

  @ParameterizedTest(name = "{0}, remote exchange {1}")
  @CsvSource({"q1, false", "q8, false", "q8, true"})
  void boundedJobCommitsItsFinalOffsetsWithoutWaitingForTheInterval(String query, boolean remoteExchange, @TempDir Path dir) {
    Config config = Config.defaults().with(MetaOptions.BARRIER_INTERVAL, RARE_BARRIERS)
        .with(LocalCluster.REMOTE_EXCHANGE, remoteExchange);
    try (LocalCluster cluster = new LocalCluster(dir, config, 2, 2)) {
      JobDefinition job = cluster.submit(NexmarkJobs.plan(query, NexmarkEndToEndTest.options()));
      await().atMost(RESULT_GUARD).pollInterval(Duration.ofMillis(100)).until(() -> cluster.sourcesDone(job));
      List<List<Object>> expected = NexmarkEndToEndTest.reference(query);
      assertThat(expected).isNotEmpty();
      assertThat(NexmarkEndToEndTest.sorted(cluster.scan(query))).containsExactlyElementsOf(expected);
    }
  }
}
