package dev.tide.bench;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tide.bench.flink.FlinkNexmarkRun;
import dev.tide.bench.flink.NexmarkSources;
import dev.tide.bench.tide.TideNexmarkRun;
import dev.tide.common.hash.RowFingerprint;
import dev.tide.stream.nexmark.NexmarkReference;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Every engine's final result of each query (Tide; Flink's DataStream job with sources generating
 * the columns read and with full rows; Flink's Nexmark SQL) equals the plain-Java reference of the same events,
 * compared by {@link RowFingerprint}: what {@code tide bench compare} relies on before it reports a number.
 */
class EnginesAgreeTest {
  static final long EVENTS = 20_000;
  static final long SEED = 7;
  static final long EVENT_TIME_RATE = 1000;
  static final int PARALLELISM = 2;
  static final Duration INTERVAL = Duration.ofMillis(100);
  static final Duration TIMEOUT = Duration.ofMinutes(2);

  static RowFingerprint reference(String query) {
    List<List<Object>> rows = NexmarkReference.query(query, NexmarkSources.config(SEED, EVENT_TIME_RATE), EVENTS);
    RowFingerprint.Builder f = new RowFingerprint.Builder();
    rows.forEach(f::add);
    return f.build();
  }

  @ParameterizedTest
  @ValueSource(strings = {"q0", "q1", "q2", "q3", "q4", "q5", "q7", "q8"})
  void flinkEqualsReference(String query, @TempDir Path dir) throws Exception {
    RowFingerprint expected = reference(query);
    assertThat(expected.rows()).isPositive();
    for (FlinkNexmarkRun.Job job : FlinkNexmarkRun.Job.values()) {
      assertThat(FlinkNexmarkRun.run(dir, query, EVENTS, SEED, EVENT_TIME_RATE, PARALLELISM, INTERVAL, TIMEOUT, job).result())
          .as("Flink %s", job).isEqualTo(expected);
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"q0", "q1", "q2", "q3", "q4", "q5", "q7", "q8"})
  void tideEqualsReference(String query, @TempDir Path dir) throws Exception {
    assertThat(TideNexmarkRun.run(dir, query, EVENTS, SEED, EVENT_TIME_RATE, PARALLELISM, INTERVAL, TIMEOUT).result())
        .isEqualTo(reference(query));
  }
}
