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
import dev.tide.stream.nexmark.NexmarkConfig;
import dev.tide.stream.nexmark.NexmarkReference;
import dev.tide.stream.queries.NexmarkQueries;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The autoscaler on the real engine: a job's input rate steps up far beyond what one actor per
 * fragment reads, so its sources fall behind (backlog) → the autoscaler scales it out through the
 * reschedule path → the bounded input ends and the backlog drains → it scales the job back in; the
 * view equals the reference.
 */
class AutoscalerEndToEndTest {
  /** Enough that reading them unpaced outlasts the autoscaler's first fresh window (about 1.3 s). */
  static final long EVENTS = 3_000_000;

  @Test
  void aLoadStepScalesTheJobOutAndItsEndScalesItBackIn(@TempDir Path dir) {
    Config config = NexmarkEndToEndTest.fastBarriers().with(MetaOptions.DEFAULT_PARALLELISM, 1)
        .with(AutoscalerOptions.INTERVAL, Duration.ofMillis(100)).with(AutoscalerOptions.STABILIZATION, Duration.ofMillis(200))
        .with(AutoscalerOptions.METRIC_WINDOW, Duration.ofMillis(1000)).with(AutoscalerOptions.SCALE_DOWN_DELAY, Duration.ofSeconds(1))
        .with(AutoscalerOptions.CATCH_UP, Duration.ofSeconds(2));
    try (LocalCluster cluster = new LocalCluster(dir, config, 2, 2)) {
      Map<String, String> options = new HashMap<>(NexmarkEndToEndTest.options());
      options.put("events", String.valueOf(EVENTS));
      options.put("rate", "2000");
      options.put("rate-steps", "1500ms:1000000000");
      JobDefinition job = cluster.submit(NexmarkQueries.plan("q2", options));
      cluster.meta().reschedule(RescheduleRequest.autoscale("q2", new AutoscaleSpec(1, 4, 0)));
      Autoscaler autoscaler = cluster.meta().autoscaler();

      await().atMost(Duration.ofMinutes(2)).conditionEvaluationListener(c -> {
        if (c.getRemainingTimeInMS() < 1000) {
          System.out.println("autoscaler round: " + autoscaler.lastRound() + "\ndecisions: " + autoscaler.decisions("q2"));
        }
      }).until(() -> applied(autoscaler, true));
      Autoscaler.Decision up = autoscaler.decisions("q2").stream().filter(d -> d.to() > d.from()).findFirst().orElseThrow();
      assertThat(up.reason()).startsWith("scale-up 1 → ").contains("rows/s");
      await().atMost(Duration.ofMinutes(2)).pollInterval(Duration.ofMillis(100)).until(() -> cluster.sourcesDone(job));
      await().atMost(Duration.ofMinutes(1)).until(() -> applied(autoscaler, false));
      Autoscaler.Decision down = autoscaler.decisions("q2").stream().filter(d -> d.to() < d.from()).findFirst().orElseThrow();
      assertThat(down.atMs()).isGreaterThan(up.atMs());
      assertThat(down.reason()).startsWith("scale-down");

      NexmarkConfig cfg = NexmarkConfig.defaults().withSeed(NexmarkEndToEndTest.SEED).withEventsPerSecond(NexmarkEndToEndTest.EVENT_TIME_RATE);
      List<List<Object>> expected = NexmarkReference.query("q2", cfg, EVENTS);
      assertThat(NexmarkEndToEndTest.sorted(cluster.scan("q2"))).containsExactlyElementsOf(expected);
    }
  }

  private static boolean applied(Autoscaler a, boolean up) {
    return a.decisions("q2").stream().anyMatch(d -> d.outcome().equals("applied") && (d.to() > d.from()) == up);
  }
}
