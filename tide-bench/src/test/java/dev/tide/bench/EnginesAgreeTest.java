package dev.tide.bench;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tide.bench.flink.FlinkNexmarkRun;
import dev.tide.bench.flink.NexmarkSources;
import dev.tide.bench.tide.TideNexmarkRun;
import dev.tide.common.hash.RowFingerprint;
import dev.tide.sql.NexmarkJobs;
import dev.tide.stream.nexmark.NexmarkReference;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Every engine's final result of each query (Tide; Flink's DataStream job with sources generating
 * the columns read and with full rows; Flink's Nexmark SQL) equals the plain-Java reference of the same events,
 * compared by {@link RowFingerprint}: what {@code tide bench compare} relies on before it reports a number.
 * Queries without a reference (q9 and up) are compared with Tide's result of the same events instead.
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

  /**
   * The queries without a plain-Java reference: each kind of Flink job (DataStream, DataStream with
   * full rows, SQL) gives Tide's result of the same events, and the result is not empty.
   */
  @ParameterizedTest
  @ValueSource(strings = {"q9", "q10", "q11", "q12", "q14", "q15", "q16", "q17", "q18", "q19", "q20", "q21", "q22"})
  void flinkEqualsTide(String query, @TempDir Path dir) throws Exception {
    assertFlinkEqualsTide(query, EVENTS, EVENT_TIME_RATE, dir);
  }

  /**
   * The same where the default events do not reach: a million events a second of event time gives
   * many bids of one bidder on one auction in the same millisecond, whose order the tie-breaks on
   * the bid's row id decide (q18's published deduplication keeps the bid that arrives last, and
   * differs here); one event a second spans hours (q14's times of day) and days (q16).
   */
  @ParameterizedTest
  @CsvSource({"q9, 20000, 1000000", "q18, 20000, 1000000", "q19, 20000, 1000000", "q14, 30000, 1", "q16, 100000, 1"})
  void flinkEqualsTideOnTiesAndDays(String query, long events, long eventTimeRate, @TempDir Path dir) throws Exception {
    assertFlinkEqualsTide(query, events, eventTimeRate, dir);
  }

  private static void assertFlinkEqualsTide(String query, long events, long eventTimeRate, Path dir) throws Exception {
    RowFingerprint tide = TideNexmarkRun.run(dir.resolve("tide"), query, events, SEED, eventTimeRate, PARALLELISM, INTERVAL, TIMEOUT)
        .result();
    assertThat(tide.rows()).as("Tide's rows").isPositive();
    for (FlinkNexmarkRun.Job job : FlinkNexmarkRun.Job.values()) {
      assertThat(FlinkNexmarkRun.run(dir.resolve(job.name()), query, events, SEED, eventTimeRate, PARALLELISM, INTERVAL, TIMEOUT, job)
          .result()).as("Flink %s", job).isEqualTo(tide);
    }
  }

  /** Flink runs every built-in query but q6; compare reports an engine without a job by engine and query, and runs the others. */
  @Test
  void flinkRunsEveryBuiltInQueryButQ6() {
    Set<String> expected = new TreeSet<>(NexmarkJobs.names());
    expected.remove("q6");
    for (FlinkNexmarkRun.Job job : FlinkNexmarkRun.Job.values()) {
      assertThat(new TreeSet<>(job.queries())).as("%s", job).isEqualTo(expected);
    }
    for (String engine : List.of("flink", "flink-full", "flink-sql")) {
      assertThat(CompareCommand.unavailable(engine, "q6")).hasValueSatisfying(why -> assertThat(why).contains(engine, "q6"));
      assertThat(CompareCommand.unavailable(engine, "q9")).isEmpty();
    }
    assertThat(CompareCommand.unavailable("tide", "q6")).isEmpty();
  }

  @ParameterizedTest
  @ValueSource(strings = {"q0", "q1", "q2", "q3", "q4", "q5", "q7", "q8"})
  void tideEqualsReference(String query, @TempDir Path dir) throws Exception {
    assertThat(TideNexmarkRun.run(dir, query, EVENTS, SEED, EVENT_TIME_RATE, PARALLELISM, INTERVAL, TIMEOUT).result())
        .isEqualTo(reference(query));
  }
}
