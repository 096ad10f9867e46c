package dev.tide.bench.flink;

import dev.tide.bench.EngineRun;
import dev.tide.bench.Progress;
import dev.tide.bench.Timed;
import dev.tide.common.hash.RowFingerprint;
import dev.tide.stream.nexmark.NexmarkConfig;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.apache.flink.api.common.JobID;
import org.apache.flink.runtime.jobmaster.JobResult;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

/**
 * One Flink run of a Nexmark query on a fresh {@link FlinkCluster}: timed from submission of the job
 * until its result is known (every bounded source ended and every operator finished), the same span
 * Tide's run measures. Sources have one split per slot, as Tide's; progress is sampled from their
 * readers' row counter ({@link NexmarkSources#rowsProduced}).
 */
public final class FlinkNexmarkRun {
  private FlinkNexmarkRun() {}

  /** Which Flink job runs the query. */
  public enum Job {
    /** The DataStream job ({@link FlinkNexmarkQueries}), sources generating the columns it reads. */
    DATASTREAM,
    /** The same job, sources building every column of every event (the boxed full-row path). */
    DATASTREAM_FULL_ROWS,
    /** The Nexmark benchmark's SQL on Flink's table planner ({@link FlinkNexmarkSql}). */
    SQL;

    /** The queries this kind of job runs, in query order. */
    public Set<String> queries() {
      return this == SQL ? FlinkNexmarkSql.queries() : FlinkNexmarkQueries.QUERIES;
    }

    /**
     * Why this kind of job cannot run {@code query}, naming the query and the kind, or empty if it can.
     * Bench commands report the reason for the run instead of running it.
     */
    public Optional<String> unavailable(String query) {
      if (queries().contains(query)) {
        return Optional.empty();
      }
      String kind = this == SQL ? "SQL job" : "DataStream job";
      String why = query.equals("q6") ? " (its OVER window refuses the retracting input of q6's winning-bid aggregation)" : "";
      return Optional.of("Flink has no " + kind + " for " + query + why + "; its " + kind + "s run " + String.join(",", queries()));
    }
  }

  /** A run of the DataStream job whose sources generate only the columns it reads. */
  public static Timed run(Path dir, String query, long events, long seed, long eventTimeRate, int parallelism,
      Duration checkpointInterval, Duration timeout) throws Exception {
    return run(dir, query, events, seed, eventTimeRate, parallelism, checkpointInterval, timeout, Job.DATASTREAM);
  }

  public static Timed run(Path dir, String query, long events, long seed, long eventTimeRate, int parallelism,
      Duration checkpointInterval, Duration timeout, Job job) throws Exception {
    Optional<String> unavailable = job.unavailable(query);
    if (unavailable.isPresent()) {
      throw new IllegalArgumentException(unavailable.get());
    }
    String name = query + "-" + UUID.randomUUID();
    try (FlinkCluster cluster = new FlinkCluster(dir, parallelism, parallelism, checkpointInterval)) {
      StreamExecutionEnvironment env = cluster.environment();
      NexmarkConfig cfg = NexmarkSources.config(seed, eventTimeRate);
      NexmarkSources.resetRows();
      switch (job) {
        case DATASTREAM -> FlinkNexmarkQueries.build(query, env, cfg, events, parallelism, name, false);
        case DATASTREAM_FULL_ROWS -> FlinkNexmarkQueries.build(query, env, cfg, events, parallelism, name, true);
        case SQL -> FlinkNexmarkSql.build(query, env, cfg, events, parallelism, name);
      }
      var graph = env.getStreamGraph();
      graph.setJobName("nexmark-" + query);
      graph.setJobId(new JobID());
      long cpu0 = EngineRun.processCpuNanos();
      long start = System.nanoTime();
      Progress progress = Progress.start(NexmarkSources::rowsProduced);
      JobID id = cluster.client().submitJob(graph).get();
      JobResult result = cluster.client().requestJobResult(id).get(timeout.toNanos(), TimeUnit.NANOSECONDS);
      long wall = System.nanoTime() - start;
      long cpu = EngineRun.processCpuNanos() - cpu0;
      Progress.Timeline timeline = progress.stop(NexmarkSources.rowsExpected());
      if (!result.isSuccess()) {
        Throwable cause = result.getSerializedThrowable().map(t -> t.deserializeError(FlinkNexmarkRun.class.getClassLoader()))
            .orElse(null);
        throw new IllegalStateException("Flink " + query + " failed: " + result.getJobStatus().orElse(null), cause);
      }
      RowFingerprint f = FingerprintSink.total(name);
      return new Timed(wall, cpu, f, timeline);
    }
  }
}
