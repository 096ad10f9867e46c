package dev.tide.cli.bench;

import dev.tide.cli.TempDirs;
import dev.tide.cli.logging.ShutdownLogs;
import dev.tide.cluster.LocalCluster;
import dev.tide.common.config.Config;
import dev.tide.meta.MetaOptions;
import dev.tide.meta.RescheduleRequest;
import dev.tide.meta.RescheduleResult;
import dev.tide.meta.scale.JobIntent;
import dev.tide.proto.plan.JobDefinition;
import dev.tide.storage.object.LocalObjectStore;
import dev.tide.storage.object.ObjectStore;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;

/**
 * Runs the rescale benchmark for one state size on a fresh {@link LocalCluster} in a temporary
 * directory: backfills the state ({@link RescaleJob}), waits for the live stream to run steadily at
 * its rate, then rescales the job out and back in online, each time waiting until throughput has
 * settled, and analyzes what the {@link RescaleProbe} saw ({@link RescaleAnalysis}).
 *
 * <p>Thread-safety: one run at a time; the probe runs on its own thread.
 */
public final class RescaleBench {
  /** Windows observed after a reschedule at least, even if throughput never left the band. */
  static final int MIN_WINDOWS_AFTER = 5;
  /** How often the driver checks its conditions while it waits. */
  private static final long CHECK_NANOS = TimeUnit.MILLISECONDS.toNanos(50);
  /** How often the driver asks meta whether the reschedule is still in flight. */
  private static final long RESCHEDULING_POLL_NANOS = TimeUnit.MILLISECONDS.toNanos(1);

  /**
   * @param rate events per second of the live stream
   * @param nodes compute nodes
   * @param slotsPerNode slots per node
   * @param splits splits of each source
   * @param parallelism actors per fragment before the first reschedule and after the second
   * @param scaledParallelism actors per fragment between them
   * @param barrierInterval checkpoint interval; also the resolution of the throughput timeline
   * @param quiet steady running before each reschedule, at least
   * @param settleTimeout most time to wait for steady throughput before and after a reschedule
   * @param loadTimeout most time for the backfill
   */
  public record Settings(long rate, int nodes, int slotsPerNode, int splits, int parallelism, int scaledParallelism,
      Duration barrierInterval, Duration quiet, Duration settleTimeout, Duration loadTimeout) {}

  private final Settings settings;
  private final Consumer<String> progress;

  /** @param progress told what the run is doing, a line at a time */
  public RescaleBench(Settings settings, Consumer<String> progress) {
    this.settings = settings;
    this.progress = progress;
  }

  public RescaleRun run(long targetBytes) throws IOException, InterruptedException {
    Path dir = Files.createTempDirectory("tide-rescale-bench-");
    ShutdownLogs.restore();
    ObjectStore objects = new LocalObjectStore(dir.resolve("objects"));
    Config config = Config.defaults()
        .with(MetaOptions.BARRIER_INTERVAL, settings.barrierInterval())
        .with(MetaOptions.DEFAULT_PARALLELISM, settings.parallelism());
    // A meta store file, as in production: each commit is made durable before workers hear of it.
    LocalCluster cluster = new LocalCluster(objects, dir.resolve("meta.db"), config, settings.nodes(), settings.slotsPerNode());
    RescaleProbe probe = null;
    try {
      long events = RescaleJob.backfillEventsFor(targetBytes);
      long start = System.nanoTime();
      JobDefinition job = cluster.submit(RescaleJob.plan(events, settings.rate(), settings.splits()));
      probe = new RescaleProbe(cluster.meta(), objects, RescaleJob.liveSource(job), RescaleJob.backfillSource(job));
      probe.start();
      RescaleProbe p = probe;
      progress.accept(String.format(Locale.ROOT, "backfilling %,d events", events));
      await(p::backfillDone, start + settings.loadTimeout().toNanos(),
          "backfill of " + events + " events did not finish within " + settings.loadTimeout());
      double backfillSeconds = (System.nanoTime() - start) / 1e9;
      long backfilled = p.latest().stateBytes();

      List<RescaleOutcome> outcomes = new ArrayList<>();
      int[] targets = {settings.scaledParallelism(), settings.parallelism()};
      int from = settings.parallelism();
      long phaseStart = System.nanoTime();
      for (int to : targets) {
        progress.accept("running steadily, then rescaling " + from + " -> " + to);
        waitSteady(p, phaseStart);
        RescaleOutcome o = rescale(cluster, p, phaseStart, from, to);
        outcomes.add(o);
        phaseStart = System.nanoTime();
        from = to;
      }
      return new RescaleRun(targetBytes, events, backfillSeconds, backfilled, outcomes, cluster.meta().stats().recoveries());
    } finally {
      if (probe != null) {
        probe.close();
      }
      ShutdownLogs.quietly(cluster::close);
      TempDirs.deleteTree(dir);
    }
  }

  /** Waits for the quiet period, then until the live stream runs at its rate (or the settle timeout). */
  private void waitSteady(RescaleProbe probe, long phaseStart) throws InterruptedException {
    long quietEnd = phaseStart + settings.quiet().toNanos();
    long deadline = quietEnd + settings.settleTimeout().toNanos();
    while (true) {
      long now = System.nanoTime();
      if (now >= deadline) {
        return; // the outcome reports that it did not start from steady state
      }
      if (now >= quietEnd && RescaleAnalysis.steadyAtEnd(RescaleAnalysis.windows(since(probe, phaseStart)), settings.rate(),
          RescaleAnalysis.BEFORE_WINDOWS)) {
        return;
      }
      TimeUnit.NANOSECONDS.sleep(CHECK_NANOS);
    }
  }

  private RescaleOutcome rescale(LocalCluster cluster, RescaleProbe probe, long phaseStart, int from, int to)
      throws InterruptedException {
    String label = from + " -> " + to;
    long request = System.nanoTime();
    RescheduleResult result = cluster.meta().reschedule(RescheduleRequest.scale(RescaleJob.NAME, JobIntent.fixed(to)));
    if (!result.applied()) {
      throw new IllegalStateException("reschedule " + label + " of job '" + RescaleJob.NAME + "' changed nothing: " + result.diff());
    }
    long deadline = request + settings.settleTimeout().toNanos();
    long seen;
    long epoch;
    while (true) {
      if (!cluster.meta().snapshot().jobs().get(RescaleJob.NAME).rescheduling()) {
        seen = System.nanoTime();
        epoch = cluster.meta().committedVersion().getMaxCommittedEpoch();
        break;
      }
      if (System.nanoTime() >= deadline) {
        throw new IllegalStateException("reschedule " + label + " did not commit within " + settings.settleTimeout());
      }
      TimeUnit.NANOSECONDS.sleep(RESCHEDULING_POLL_NANOS);
    }
    int maxWindows = (int) Math.max(MIN_WINDOWS_AFTER, settings.settleTimeout().toMillis() / settings.barrierInterval().toMillis());
    long rescheduleEpoch = epoch;
    await(() -> RescaleAnalysis.settled(since(probe, phaseStart), rescheduleEpoch, MIN_WINDOWS_AFTER, maxWindows),
        seen + settings.settleTimeout().toNanos() + 10 * settings.barrierInterval().toNanos(),
        "no committed epochs after reschedule " + label);
    return RescaleAnalysis.analyze(label, since(probe, phaseStart), request, seen, rescheduleEpoch, settings.rate());
  }

  private static List<RescaleCommit> since(RescaleProbe probe, long startNanos) {
    return probe.commits().stream().filter(c -> c.observedNanos() >= startNanos).toList();
  }

  private static void await(BooleanSupplier condition, long deadlineNanos, String timeoutMessage) throws InterruptedException {
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() >= deadlineNanos) {
        throw new IllegalStateException(timeoutMessage);
      }
      TimeUnit.NANOSECONDS.sleep(CHECK_NANOS);
    }
  }

}
