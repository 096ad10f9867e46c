package dev.tide.bench.flink;

import dev.tide.common.hash.RowFingerprint;
import dev.tide.bench.tide.TideNexmarkRun.Timed;
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
 * Tide's run measures. Sources have one split per slot, as Tide's.
 */
public final class FlinkNexmarkRun {
  private FlinkNexmarkRun() {}

  public static Timed run(Path dir, String query, long events, long seed, long eventTimeRate, int parallelism,
      Duration checkpointInterval, Duration timeout) throws Exception {
    String name = query + "-" + UUID.randomUUID();
    try (FlinkCluster cluster = new FlinkCluster(dir, parallelism, parallelism, checkpointInterval)) {
      StreamExecutionEnvironment env = cluster.environment();
      NexmarkConfig cfg = NexmarkSources.config(seed, eventTimeRate);
      FlinkNexmarkQueries.build(query, env, cfg, events, parallelism, name);
      var graph = env.getStreamGraph();
      graph.setJobName("nexmark-" + query);
      graph.setJobId(new JobID());
      long start = System.nanoTime();
      JobID id = cluster.client().submitJob(graph).get();
      JobResult result = cluster.client().requestJobResult(id).get(timeout.toNanos(), TimeUnit.NANOSECONDS);
      long wall = System.nanoTime() - start;
      if (!result.isSuccess()) {
        Throwable cause = result.getSerializedThrowable().map(t -> t.deserializeError(FlinkNexmarkRun.class.getClassLoader()))
            .orElse(null);
        throw new IllegalStateException("Flink " + query + " failed: " + result.getJobStatus().orElse(null), cause);
      }
      RowFingerprint f = FingerprintSink.total(name);
      return new Timed(wall, f);
    }
  }
}
