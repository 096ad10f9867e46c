package dev.tide.bench.tide;

import dev.tide.bench.EngineRun;
import dev.tide.bench.Progress;
import dev.tide.bench.Timed;
import dev.tide.cluster.LocalCluster;
import dev.tide.common.config.Config;
import dev.tide.meta.MetaOptions;
import dev.tide.proto.plan.JobDefinition;
import dev.tide.sql.NexmarkJobs;
import dev.tide.stream.source.NexmarkSourceOptions;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * One Tide run of a built-in Nexmark query on a fresh {@link LocalCluster}: one compute node with
 * {@code parallelism} slots, one source split per slot. The query ends in a digest sink (no rows
 * kept, like Flink's {@code FingerprintSink} and the Nexmark blackhole sink), not in the view
 * {@code tide bench nexmark} measures. Timed from submission until the sources' last offsets are
 * committed (the epoch that also commits the digest's last changes); the committed digest is the
 * run's result fingerprint. Progress is sampled from the source actors' live row counters.
 */
public final class TideNexmarkRun {
  private TideNexmarkRun() {}

  /** @return wall and CPU nanos from submission until done, the committed digest and the sources' progress */
  public static Timed run(Path dir, String query, long events, long seed, long eventTimeRate, int parallelism,
      Duration barrierInterval, Duration timeout) throws InterruptedException {
    Map<String, String> options = Map.of(
        NexmarkSourceOptions.EVENTS.key(), String.valueOf(events),
        NexmarkSourceOptions.SEED.key(), String.valueOf(seed),
        NexmarkSourceOptions.EVENT_TIME_RATE.key(), String.valueOf(eventTimeRate),
        NexmarkSourceOptions.SPLITS.key(), String.valueOf(parallelism));
    Config config = Config.defaults().with(MetaOptions.BARRIER_INTERVAL, barrierInterval);
    long pollNanos = Math.min(TimeUnit.MILLISECONDS.toNanos(20), barrierInterval.toNanos() / 4);
    try (LocalCluster cluster = new LocalCluster(dir, config, 1, parallelism)) {
      LongSupplier rows = () -> cluster.nodes().stream().mapToLong(n -> n.compute().sourceRowsProduced()).sum();
      long cpu0 = EngineRun.processCpuNanos();
      long start = System.nanoTime();
      Progress progress = Progress.start(rows);
      JobDefinition job = cluster.submit(NexmarkJobs.plan(query, options, NexmarkJobs.Terminal.DIGEST));
      long deadline = start + timeout.toNanos();
      // Committed progress changes only with the committed epoch: the state is read once per epoch,
      // not once per poll, so that watching costs the engine no CPU.
      long checkedEpoch = -1;
      while (true) {
        long epoch = cluster.meta().stats().committedEpoch();
        if (epoch != checkedEpoch) {
          checkedEpoch = epoch;
          if (cluster.sourcesDone(job)) {
            break;
          }
        }
        if (System.nanoTime() >= deadline) {
          throw new IllegalStateException("Tide " + query + " over " + events + " events did not finish within " + timeout);
        }
        TimeUnit.NANOSECONDS.sleep(pollNanos);
      }
      long wall = System.nanoTime() - start;
      long cpu = EngineRun.processCpuNanos() - cpu0;
      Progress.Timeline timeline = progress.stop(rows.getAsLong());
      return new Timed(wall, cpu, cluster.digest(query), timeline);
    }
  }
}
