package dev.tide.bench.flink;

import dev.tide.bench.EngineRun;
import dev.tide.bench.Progress;
import dev.tide.bench.Timed;
import dev.tide.common.hash.RowFingerprint;
import dev.tide.stream.nexmark.NexmarkConfig;
import java.nio.file.Path;
import java.time.Duration;
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

  /** A run whose sources generate only the columns the job reads. */
  public static Timed run(Path dir, String query, long events, long seed, long eventTimeRate, int parallelism,
      Duration checkpointInterval, Duration timeout) throws Exception {
    return run(dir, query, events, seed, eventTimeRate, parallelism, checkpointInterval, timeout, false);
  }

  /** A run whose sources generate every column of every event if {@code fullRows}, else only the columns read. */
  public static Timed run(Path dir, String query, long events, long seed, long eventTimeRate, int parallelism,
      Duration checkpointInterval, Duration timeout, boolean fullRows) throws Exception {
    String name = query + "-" + UUID.randomUUID();
    try (FlinkCluster cluster = new FlinkCluster(dir, parallelism, parallelism, checkpointInterval)) {
      StreamExecutionEnvironment env = cluster.environment();
      NexmarkConfig cfg = NexmarkSources.config(seed, eventTimeRate);
      NexmarkSources.resetRows();
      FlinkNexmarkQueries.build(query, env, cfg, events, parallelism, name, fullRows);
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
