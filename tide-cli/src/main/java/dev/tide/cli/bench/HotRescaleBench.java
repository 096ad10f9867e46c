package dev.tide.cli.bench;

import static dev.tide.stream.expr.Ex.col;
import static dev.tide.stream.expr.Ex.lit;
import static dev.tide.stream.expr.Ex.mod;

import dev.tide.cli.TempDirs;
import dev.tide.cluster.LocalCluster;
import dev.tide.common.config.Config;
import dev.tide.meta.MetaOptions;
import dev.tide.cli.logging.ShutdownLogs;
import dev.tide.meta.RescheduleRequest;
import dev.tide.meta.RescheduleResult;
import dev.tide.meta.scale.JobIntent;
import dev.tide.proto.plan.Fragment;
import dev.tide.proto.plan.JobDefinition;
import dev.tide.proto.plan.Plan;
import dev.tide.proto.plan.PlanNode;
import dev.tide.proto.store.SstInfo;
import dev.tide.common.store.VersionDeltas;
import dev.tide.stream.plan.Agg;
import dev.tide.stream.plan.PlanBuilder;
import dev.tide.stream.plan.PlanBuilder.Named;
import dev.tide.stream.source.NexmarkSourceOptions;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * Online rescaling under saturation: an unthrottled bid stream into a keyed aggregation whose
 * state is read and written by every row ({@code count(*), max(price)} per {@code _row_id % keys},
 * so each key comes back every {@code keys} bids and the hot set is the whole state), rescaled
 * {@code p -> q -> p} while it runs flat out, on a fresh {@link LocalCluster}.
 *
 * <p>Measured every {@value #SAMPLE_MS} ms from the compute nodes' live row counters
 * ({@code ComputeNode#fragmentRowsIn}): rows produced by the source fragment and rows arriving at the
 * aggregation fragment (the sink side: the aggregation writes its view in the same fragment). So
 * the gap is seen at both ends with a resolution of the sample period, not of the barrier interval.
 */
public final class HotRescaleBench {
  public static final String NAME = "hot_rescale";
  public static final String VIEW = "hot_counts";
  static final int SAMPLE_MS = 10;

  /**
   * @param keys distinct aggregation keys (the state's rows)
   * @param nodes compute nodes
   * @param slotsPerNode slots per node
   * @param splits splits of the source
   * @param parallelism actors per fragment before the first reschedule and after the second
   * @param scaledParallelism actors per fragment between them
   * @param warmup running before the first reschedule (the state fills: every key is written once per {@code keys} bids)
   * @param phase running after each reschedule
   */
  public record Settings(long keys, int nodes, int slotsPerNode, int splits, int parallelism, int scaledParallelism,
      java.time.Duration barrierInterval, java.time.Duration warmup, java.time.Duration phase) {}

  /** One sample: nanoseconds since the job was submitted, rows produced at the source and arrived at the sink side. */
  public record Sample(long nanos, long sourceRows, long sinkRows) {}

  /** A reschedule: when it was requested and when meta committed it (nanoseconds since submission), and the state then. */
  public record Rescale(String label, long requestNanos, long committedNanos, long stateBytes) {}

  /** What a run saw. */
  public record Run(Settings settings, List<Sample> samples, List<Rescale> rescales, long recoveries) {}

  private final Settings settings;
  private final Consumer<String> progress;

  public HotRescaleBench(Settings settings, Consumer<String> progress) {
    this.settings = settings;
    this.progress = progress;
  }

  /** The job: bids, unthrottled and unbounded, counted per {@code _row_id % keys} into a view. */
  public static Plan plan(long keys, int splits) {
    PlanBuilder b = new PlanBuilder(NAME);
    Map<String, String> options = Map.of(NexmarkSourceOptions.SPLITS.key(), String.valueOf(splits));
    b.source("nexmark", "bid", options)
        .project(List.of(new Named(mod(col("_row_id"), lit(keys)), "k"), new Named(col("price"), "price")))
        .groupBy("k").agg(Agg.count("bids"), Agg.max("price", "top"))
        .materialize(VIEW);
    return b.build();
  }

  public Run run() throws IOException, InterruptedException {
    Path dir = Files.createTempDirectory("tide-rescale-hot-");
    ShutdownLogs.restore();
    Config config = Config.defaults()
        .with(MetaOptions.BARRIER_INTERVAL, settings.barrierInterval())
        .with(MetaOptions.DEFAULT_PARALLELISM, settings.parallelism());
    LocalCluster cluster = new LocalCluster(dir, config, settings.nodes(), settings.slotsPerNode());
    Sampler sampler = null;
    try {
      JobDefinition job = cluster.submit(plan(settings.keys(), settings.splits()));
      int source = fragment(job, true);
      int sink = fragment(job, false);
      sampler = new Sampler(cluster, job.getJobId(), source, sink);
      sampler.start();
      List<Rescale> rescales = new ArrayList<>();
      progress.accept(String.format(java.util.Locale.ROOT, "running flat out for %s (%,d keys), then rescaling %d -> %d",
          settings.warmup(), settings.keys(), settings.parallelism(), settings.scaledParallelism()));
      TimeUnit.NANOSECONDS.sleep(settings.warmup().toNanos());
      rescales.add(rescale(cluster, sampler, settings.parallelism(), settings.scaledParallelism()));
      progress.accept("running for " + settings.phase() + ", then rescaling " + settings.scaledParallelism() + " -> "
          + settings.parallelism());
      TimeUnit.NANOSECONDS.sleep(settings.phase().toNanos());
      rescales.add(rescale(cluster, sampler, settings.scaledParallelism(), settings.parallelism()));
      TimeUnit.NANOSECONDS.sleep(settings.phase().toNanos());
      sampler.close();
      return new Run(settings, sampler.samples(), rescales, cluster.meta().stats().recoveries());
    } finally {
      if (sampler != null) {
        sampler.close();
      }
      ShutdownLogs.quietly(cluster::close);
      TempDirs.deleteTree(dir);
    }
  }

  private Rescale rescale(LocalCluster cluster, Sampler sampler, int from, int to) throws InterruptedException {
    String label = from + " -> " + to;
    long stateBytes = 0;
    for (SstInfo sst : VersionDeltas.allSsts(cluster.meta().committedVersion())) {
      stateBytes += sst.getFileSize();
    }
    long request = sampler.now();
    RescheduleResult result = cluster.meta().reschedule(RescheduleRequest.scale(NAME, JobIntent.fixed(to)));
    if (!result.applied()) {
      throw new IllegalStateException("reschedule " + label + " of job '" + NAME + "' changed nothing: " + result.diff());
    }
    long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(2);
    while (cluster.meta().snapshot().jobs().get(NAME).rescheduling()) {
      if (System.nanoTime() >= deadline) {
        throw new IllegalStateException("reschedule " + label + " did not commit within 2 minutes");
      }
      TimeUnit.MILLISECONDS.sleep(1);
    }
    Rescale r = new Rescale(label, request, sampler.now(), stateBytes);
    progress.accept(String.format(java.util.Locale.ROOT, "rescaled %s: request to commit %.0f ms", label,
        (r.committedNanos() - r.requestNanos()) / 1e6));
    return r;
  }

  /** The id of the job's source fragment ({@code source}) or of its aggregation's fragment. */
  private static int fragment(JobDefinition job, boolean source) {
    for (Fragment f : job.getFragmentsList()) {
      for (PlanNode n : f.getNodesList()) {
        if (source ? n.hasSource() : n.hasHashAgg()) {
          return f.getFragmentId();
        }
      }
    }
    throw new IllegalStateException("job '" + job.getName() + "' has no " + (source ? "source" : "aggregation") + " fragment");
  }

  /** Samples the two fragments' live row counters on its own thread. */
  private static final class Sampler implements AutoCloseable {
    private final LocalCluster cluster;
    private final int job;
    private final int source;
    private final int sink;
    private final long start = System.nanoTime();
    private final List<Sample> samples = new ArrayList<>();
    private final Thread thread;
    private volatile boolean running = true;

    Sampler(LocalCluster cluster, int job, int source, int sink) {
      this.cluster = cluster;
      this.job = job;
      this.source = source;
      this.sink = sink;
      this.thread = new Thread(this::loop, "rescale-hot-sampler");
      thread.setDaemon(true);
    }

    void start() {
      thread.start();
    }

    long now() {
      return System.nanoTime() - start;
    }

    private void loop() {
      while (running) {
        long src = 0;
        long snk = 0;
        for (LocalCluster.Node n : cluster.nodes()) {
          src += n.compute().fragmentRowsIn(job, source);
          snk += n.compute().fragmentRowsIn(job, sink);
        }
        Sample s = new Sample(now(), src, snk);
        synchronized (samples) {
          samples.add(s);
        }
        try {
          TimeUnit.MILLISECONDS.sleep(SAMPLE_MS);
        } catch (InterruptedException e) {
          return;
        }
      }
    }

    List<Sample> samples() {
      synchronized (samples) {
        return List.copyOf(samples);
      }
    }

    @Override
    public void close() throws InterruptedException {
      running = false;
      thread.interrupt();
      thread.join();
    }
  }

  // ---------------------------------------------------------------- analysis

  /**
   * What one reschedule did to throughput, at one end (source or sink side).
   *
   * @param before rows/s over the {@value #STEADY_SECONDS} s before the request
   * @param after rows/s over the {@value #STEADY_SECONDS} s ending {@code phase} after the job ran at the new
   *     parallelism (the reschedule committed), or at the last sample if that is earlier
   * @param gapMillis the longest time without a row from 1 s before the request to 10 s after the job ran at the
   *     new parallelism (sample resolution); a stop still lasting at the end of that span counts until its end
   * @param steadyGapMillis the longest time without a row in the {@value #STEADY_SECONDS} s ending 1 s before the request:
   *     what the job's own barriers and pauses cost without a rescale, to tell from {@code gapMillis}
   * @param secondsTo90 from the request until the first of 4 windows of 250 ms in a row at 90% or more of the lower of {@code before}
   *     and {@code after} (a scale-up regains the rate before; a scale-down to less capacity settles at the rate after), with rows
   *     flowing; NaN if never
   * @param perSecond rows/s in the 1 s windows from 5 s before to 15 s after the request
   */
  public record Effect(double before, double after, double gapMillis, double steadyGapMillis, double secondsTo90, double[] perSecond) {}

  public static final int STEADY_SECONDS = 5;

  /** @param sink the sink side's rows, else the source's */
  public static Effect effect(List<Sample> samples, Rescale r, java.time.Duration phase, boolean sink) {
    long s = TimeUnit.SECONDS.toNanos(1);
    long t0 = r.requestNanos();
    double before = rate(samples, t0 - STEADY_SECONDS * s, t0, sink);
    long last = samples.get(samples.size() - 1).nanos();
    long afterEnd = Math.min(Math.max(t0, r.committedNanos()) + phase.toNanos(), last);
    double after = rate(samples, afterEnd - STEADY_SECONDS * s, afterEnd, sink);
    long gapEnd = Math.min(Math.max(t0, r.committedNanos()) + 10 * s, last);
    double gap = longestGap(samples, t0 - s, gapEnd, sink);
    double steadyGap = longestGap(samples, t0 - (STEADY_SECONDS + 1) * s, t0 - s, sink);
    long quarter = s / 4;
    double to90 = Double.NaN;
    for (long t = t0; t + 4 * quarter <= afterEnd; t += quarter / 5) {
      boolean ok = true;
      for (int k = 0; k < 4 && ok; k++) {
        double window = rate(samples, t + k * quarter, t + (k + 1) * quarter, sink);
        ok = window > 0 && window >= 0.9 * Math.min(before, after);
      }
      if (ok) {
        to90 = (t - t0) / 1e9;
        break;
      }
    }
    double[] perSecond = new double[20];
    for (int k = 0; k < perSecond.length; k++) {
      perSecond[k] = rate(samples, t0 + (k - 5) * s, t0 + (k - 4) * s, sink);
    }
    return new Effect(before, after, gap, steadyGap, to90, perSecond);
  }

  /** The longest time in {@code [from, to]} without a new row (sample resolution); a stop lasting at {@code to} counts until then. */
  private static double longestGap(List<Sample> samples, long from, long to, boolean sink) {
    double gap = 0;
    long lastChange = -1;
    long lastRows = -1;
    for (Sample x : samples) {
      if (x.nanos() < from || x.nanos() > to) {
        continue;
      }
      long rows = sink ? x.sinkRows() : x.sourceRows();
      if (lastChange < 0 || rows != lastRows) {
        if (lastChange >= 0) {
          gap = Math.max(gap, (x.nanos() - lastChange) / 1e6);
        }
        lastChange = x.nanos();
        lastRows = rows;
      }
    }
    return lastChange < 0 ? 0 : Math.max(gap, (to - lastChange) / 1e6);
  }

  /** Rows/s between two times, from the samples nearest to them (NaN outside the run). */
  public static double rate(List<Sample> samples, long from, long to, boolean sink) {
    Sample a = at(samples, from);
    Sample b = at(samples, to);
    if (a == null || b == null || b.nanos() <= a.nanos()) {
      return Double.NaN;
    }
    long rows = sink ? b.sinkRows() - a.sinkRows() : b.sourceRows() - a.sourceRows();
    return rows * 1e9 / (b.nanos() - a.nanos());
  }

  /** The last sample at or before {@code nanos}, or null. */
  private static Sample at(List<Sample> samples, long nanos) {
    int lo = 0;
    int hi = samples.size() - 1;
    if (hi < 0 || samples.get(0).nanos() > nanos) {
      return null;
    }
    while (lo < hi) {
      int mid = (lo + hi + 1) >>> 1;
      if (samples.get(mid).nanos() <= nanos) {
        lo = mid;
      } else {
        hi = mid - 1;
      }
    }
    return samples.get(lo);
  }
}
