package dev.tide.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tide.common.config.Config;
import dev.tide.meta.MetaOptions;
import dev.tide.proto.plan.JobDefinition;
import dev.tide.stream.nexmark.NexmarkConfig;
import dev.tide.stream.nexmark.NexmarkReference;
import dev.tide.sql.NexmarkJobs;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Each built-in query's view, once its sources stop, equals the query computed directly from the events. */
class NexmarkEndToEndTest {
  static final long EVENTS = 20_000;
  static final long SEED = 7;
  static final long EVENT_TIME_RATE = 1000;

  static Map<String, String> options() {
    return Map.of("events", String.valueOf(EVENTS), "seed", String.valueOf(SEED), "event-time-rate",
        String.valueOf(EVENT_TIME_RATE), "splits", "4");
  }

  /** Barriers every 100 ms; {@code -Dtide.remote-exchange=true} links the nodes over loopback gRPC. */
  static Config fastBarriers() {
    return Config.defaults().with(MetaOptions.BARRIER_INTERVAL, Duration.ofMillis(100))
        .with(LocalCluster.REMOTE_EXCHANGE, Boolean.getBoolean("tide.remote-exchange"));
  }

  static List<List<Object>> reference(String query) {
    NexmarkConfig cfg = NexmarkConfig.defaults().withSeed(SEED).withEventsPerSecond(EVENT_TIME_RATE);
    return NexmarkReference.query(query, cfg, EVENTS);
  }

  static List<List<Object>> sorted(List<Object[]> rows) {
    return NexmarkReference.sorted(rows.stream().map(Arrays::asList).collect(java.util.stream.Collectors.toCollection(java.util.ArrayList::new)));
  }

  @ParameterizedTest
  @ValueSource(strings = {"q0", "q1", "q2", "q3", "q4", "q5", "q7", "q8"})
  void viewEqualsReference(String query, @TempDir Path dir) {
    try (LocalCluster cluster = new LocalCluster(dir, fastBarriers(), 3, 2)) {
      JobDefinition job = cluster.submit(NexmarkJobs.plan(query, options()));
      await().atMost(Duration.ofMinutes(2)).pollInterval(Duration.ofMillis(100)).until(() -> cluster.sourcesDone(job));
      List<List<Object>> expected = reference(query);
      assertThat(expected).isNotEmpty();
      assertThat(sorted(cluster.scan(query))).containsExactlyElementsOf(expected);
    }
  }
}
