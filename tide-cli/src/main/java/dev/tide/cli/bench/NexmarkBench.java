package dev.tide.cli.bench;

import dev.tide.cli.TempDirs;
import dev.tide.cli.logging.ShutdownLogs;
import dev.tide.cluster.LocalCluster;
import dev.tide.common.config.Config;
import dev.tide.meta.MetaOptions;
import dev.tide.proto.plan.JobDefinition;
import dev.tide.sql.NexmarkJobs;
import dev.tide.stream.source.NexmarkSourceOptions;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Runs one Nexmark query over a bounded, unthrottled stream on a fresh {@link LocalCluster} in a
 * temporary directory and measures it. The clock starts at submission and stops when the sources'
 * committed offsets cover every event, which is the same epoch that commits the view's last
 * changes; the measured time therefore includes up to one barrier interval of commit delay.
 */
public final class NexmarkBench {
  /**
   * @param events events of the stream (all tables)
   * @param nodes compute nodes
   * @param slotsPerNode slots per node; the job runs with nodes x slots actors per fragment
   * @param splits source splits
   * @param barrierInterval checkpoint interval of the cluster
   * @param timeout a run still unfinished after this is reported as timed out
   */
  public record Settings(long events, int nodes, int slotsPerNode, int splits, Duration barrierInterval, Duration timeout) {
    public int parallelism() {
      return nodes * slotsPerNode;
    }
  }

  private final Settings settings;

  public NexmarkBench(Settings settings) {
    this.settings = settings;
  }

  public BenchResult run(String query) throws IOException, InterruptedException {
    Map<String, String> options = Map.of(
        NexmarkSourceOptions.EVENTS.key(), String.valueOf(settings.events()),
        NexmarkSourceOptions.SPLITS.key(), String.valueOf(settings.splits()));
    var plan = NexmarkJobs.plan(query, options);
    Config config = Config.defaults().with(MetaOptions.BARRIER_INTERVAL, settings.barrierInterval());
    long pollNanos = Math.min(TimeUnit.MILLISECONDS.toNanos(20), settings.barrierInterval().toNanos() / 4);
    Path dir = Files.createTempDirectory("tide-bench-");
    ShutdownLogs.restore();
    LocalCluster cluster = new LocalCluster(dir, config, settings.nodes(), settings.slotsPerNode());
    try {
      System.gc();
      long cpuStart = processCpuNanos();
      long start = System.nanoTime();
      JobDefinition job = cluster.submit(plan);
      long deadline = start + settings.timeout().toNanos();
      boolean done;
      long now;
      while (true) {
        done = cluster.sourcesDone(job);
        now = System.nanoTime();
        if (done || now >= deadline) {
          break;
        }
        TimeUnit.NANOSECONDS.sleep(pollNanos);
      }
      long cpu = processCpuNanos() - cpuStart;
      return new BenchResult(query, settings.events(), now - start, cpu, cluster.meta().stats().recoveries(), done);
    } finally {
      ShutdownLogs.quietly(cluster::close);
      TempDirs.deleteTree(dir);
    }
  }

  /** CPU time of this process (all threads), or -1 when the JVM does not expose it. */
  static long processCpuNanos() {
    if (ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.OperatingSystemMXBean os) {
      return os.getProcessCpuTime();
    }
    return -1;
  }

}
