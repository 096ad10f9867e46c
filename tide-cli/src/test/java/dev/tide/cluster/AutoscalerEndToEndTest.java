package dev.tide.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tide.common.config.Config;
import dev.tide.meta.MetaOptions;
import dev.tide.meta.RescheduleRequest;
import dev.tide.meta.autoscale.Autoscaler;
import dev.tide.meta.autoscale.AutoscalerOptions;
import dev.tide.meta.scale.AutoscaleSpec;
import dev.tide.proto.plan.JobDefinition;
import dev.tide.sql.NexmarkJobs;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The autoscaler on the real engine: a job's input rate steps up for 0.3 s to 200 M events/s, far
 * beyond what any machine reads (one of Tide's q2 source actors reads about 20 M events/s on this
 * machine, so a 20 M events/s step no longer surely fell behind), so its source falls behind by
 * millions of events (backlog) →
 * the autoscaler scales it out through the reschedule path → the rate steps back down and the
 * backlog drains → it scales the job back in. The burst is what makes the test independent of the
 * machine's speed; its size (≈ 60 M events) is too large for the in-memory reference, so the view
 * is checked for q2's rule only (every reschedule's exactness is checked by the chaos tests).
 */
class AutoscalerEndToEndTest {

  @Test
  void aLoadStepScalesTheJobOutAndItsEndScalesItBackIn(@TempDir Path dir) {
    Config config = NexmarkEndToEndTest.fastBarriers().with(MetaOptions.DEFAULT_PARALLELISM, 1)
        .with(AutoscalerOptions.INTERVAL, Duration.ofMillis(100)).with(AutoscalerOptions.STABILIZATION, Duration.ofMillis(200))
        .with(AutoscalerOptions.METRIC_WINDOW, Duration.ofMillis(1000)).with(AutoscalerOptions.SCALE_DOWN_DELAY, Duration.ofSeconds(1))
        .with(AutoscalerOptions.CATCH_UP, Duration.ofSeconds(2));
    try (LocalCluster cluster = new LocalCluster(dir, config, 2, 2)) {
      Map<String, String> options = new HashMap<>(NexmarkEndToEndTest.options());
      options.put("events", "-1");
      options.put("rate", "2000");
      options.put("rate-steps", "1500ms:200000000,1800ms:2000");
      JobDefinition job = cluster.submit(NexmarkJobs.plan("q2", options));
      cluster.meta().reschedule(RescheduleRequest.autoscale("q2", new AutoscaleSpec(1, 4, 0)));
      Autoscaler autoscaler = cluster.meta().autoscaler();

      await().atMost(Duration.ofMinutes(2)).conditionEvaluationListener(c -> {
        if (c.getRemainingTimeInMS() < 1000) {
          System.out.println("autoscaler round: " + autoscaler.lastRound() + "\ndecisions: " + autoscaler.decisions("q2"));
        }
      }).until(() -> applied(autoscaler, true));
      Autoscaler.Decision up = autoscaler.decisions("q2").stream().filter(d -> d.to() > d.from()).findFirst().orElseThrow();
      assertThat(up.reason()).startsWith("scale-up 1 → ").contains("rows/s");
      await().atMost(Duration.ofMinutes(3)).until(() -> applied(autoscaler, false));
      Autoscaler.Decision down = autoscaler.decisions("q2").stream().filter(d -> d.to() < d.from()).findFirst().orElseThrow();
      assertThat(down.atMs()).isGreaterThan(up.atMs());
      assertThat(down.reason()).startsWith("scale-down");

      java.util.List<Object[]> rows = cluster.scan("q2");
      assertThat(rows).isNotEmpty().allSatisfy(r -> assertThat((Long) r[0] % 123).isZero());
      assertThat(cluster.sourceProgress(job).stream().mapToLong(CommittedViews.SourceProgress::emitted).sum())
          .as("the burst was read").isGreaterThan(1_000_000);
    }
  }

  private static boolean applied(Autoscaler a, boolean up) {
    return a.decisions("q2").stream().anyMatch(d -> d.outcome().equals("applied") && (d.to() > d.from()) == up);
  }
}
