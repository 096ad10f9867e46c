package dev.tide.meta.autoscale;

import dev.tide.meta.scale.AutoscaleSpec;
import java.util.ArrayList;
import java.util.List;
import java.util.function.LongToDoubleFunction;

/**
 * A trace-replay simulator for the autoscaler: a job {@code source → agg} with a per-actor capacity,
 * the source's queue (backlog) and backpressure, stepped one epoch (1 s) at a time on simulated time,
 * driving the real {@link AutoscalerCore}. The aggregation may have a hot key: a share of its rows
 * that one actor must process, so its throughput stops growing with its actors.
 */
final class LoadSimulation {
  static final int SOURCE = 1;
  static final int AGG = 2;
  static final int VNODES = 256;
  static final int SPLITS = 64;

  /** One action as applied, with the simulated time. */
  record Applied(long atMs, AutoscalerCore.Action action) {}

  private final AutoscalerCore core;
  private final AutoscaleSpec spec;
  private final double sourceCapacity;
  private final double aggCapacity;
  private final double hotShare;
  private final long decideEveryMs;
  private int sourceP;
  private int aggP;
  private double backlog;
  private long nowMs;
  private long epoch;
  private int layoutVersion;
  private long rescheduleDoneMs = -1;
  private AutoscalerCore.Action inFlight;
  private final List<LoadSample> sourceSamples = new ArrayList<>();
  private final List<LoadSample> aggSamples = new ArrayList<>();
  final List<Applied> applied = new ArrayList<>();
  AutoscalerCore.Round lastRound;

  LoadSimulation(AutoscalerOptions.Settings settings, AutoscaleSpec spec, int sourceP, int aggP, double sourceCapacity,
      double aggCapacity, double hotShare) {
    this.core = new AutoscalerCore(settings);
    this.spec = spec;
    this.sourceP = sourceP;
    this.aggP = aggP;
    this.sourceCapacity = sourceCapacity;
    this.aggCapacity = aggCapacity;
    this.hotShare = hotShare;
    this.decideEveryMs = 5_000;
  }

  int aggParallelism() {
    return aggP;
  }

  int sourceParallelism() {
    return sourceP;
  }

  double backlog() {
    return backlog;
  }

  long nowMs() {
    return nowMs;
  }

  /** Runs {@code seconds} epochs of load {@code rate(nowMs)} rows/s. */
  void run(long seconds, LongToDoubleFunction rate) {
    for (long s = 0; s < seconds; s++) {
      step(rate.applyAsDouble(nowMs));
    }
  }

  private void step(double arriving) {
    nowMs += 1000;
    epoch++;
    double aggMax = aggP * aggCapacity;
    if (hotShare > 0) {
      aggMax = Math.min(aggMax, aggCapacity / hotShare);
    }
    double available = backlog + arriving;
    double through = Math.min(available, Math.min(sourceP * sourceCapacity, aggMax));
    backlog = available - through;
    boolean backpressured = through >= aggMax - 1e-9 && backlog > 0;
    long sec = 1_000_000_000L;
    long srcBusy = (long) (through / sourceCapacity * sec);
    long srcBlocked = backpressured ? sourceP * sec - srcBusy : 0;
    sourceSamples.add(new LoadSample(epoch, nowMs, sourceP, sourceP * sec, srcBusy, srcBlocked, (long) through, (long) through,
        (long) backlog));
    long aggBusy = (long) (through / aggCapacity * sec);
    aggSamples.add(new LoadSample(epoch, nowMs, aggP, aggP * sec, aggBusy, 0, (long) through, (long) (through / 10), -1));
    trim(sourceSamples);
    trim(aggSamples);
    if (inFlight != null && nowMs >= rescheduleDoneMs) {
      if (inFlight.ensembleRoot() == SOURCE) {
        sourceP = inFlight.to();
      } else {
        aggP = inFlight.to();
      }
      layoutVersion++;
      inFlight = null;
    }
    if (nowMs % decideEveryMs == 0) {
      lastRound = core.decide(List.of(job()), nowMs);
      for (AutoscalerCore.Action a : lastRound.actions()) {
        if (inFlight == null) {
          inFlight = a;
          rescheduleDoneMs = nowMs + 2000; // a reschedule commits a couple of barriers later
          applied.add(new Applied(nowMs, a));
        }
      }
    }
  }

  private static void trim(List<LoadSample> samples) {
    if (samples.size() > 900) {
      samples.subList(0, samples.size() - 900).clear();
    }
  }

  private AutoscalerCore.JobInput job() {
    List<AutoscalerCore.FragmentInput> fragments = List.of(
        new AutoscalerCore.FragmentInput(SOURCE, true, false, SOURCE, List.of(), sourceP, SPLITS, sourceSamples),
        new AutoscalerCore.FragmentInput(AGG, false, false, AGG, List.of(SOURCE), aggP, VNODES, aggSamples));
    return new AutoscalerCore.JobInput("q", spec, inFlight != null, "v" + layoutVersion, fragments);
  }

  long actionsOn(int root) {
    return applied.stream().filter(a -> a.action().ensembleRoot() == root).count();
  }
}
