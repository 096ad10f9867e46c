package dev.tide.cluster;

import dev.tide.meta.Meta;
import dev.tide.proto.store.Level;
import dev.tide.proto.store.SstInfo;
import dev.tide.proto.store.StoreVersion;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MultiGauge;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Duration;
import java.util.List;
import java.util.function.Supplier;

/**
 * Meta's Prometheus metrics: barrier latency, committed epoch, actors per worker, state-store
 * sizes, source throughput. Gauges read meta when scraped; the barrier timer is fed by meta on
 * every commit.
 */
public final class MetaMetrics {
  private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
  private final Supplier<Meta> meta;
  private final MultiGauge actorsPerWorker;
  private final MultiGauge workerAlive;
  private final MultiGauge sourceEvents;
  private final MultiGauge fragmentRowsIn;
  private final MultiGauge fragmentRowsOut;
  private final MultiGauge fragmentBusy;
  private final MultiGauge fragmentBackpressure;
  private final MultiGauge fragmentBacklog;
  private final MultiGauge fragmentSkipped;
  /** The window of committed epochs the fragment gauges average over. */
  static final long LOAD_WINDOW_MS = 30_000;
  private final CommittedViews views;

  public MetaMetrics(Supplier<Meta> meta, CommittedViews views) {
    this.meta = meta;
    this.views = views;
    Gauge.builder("tide.committed.epoch", () -> meta.get().stats().committedEpoch())
        .description("Newest epoch whose barrier committed").register(registry);
    Gauge.builder("tide.barriers.inflight", () -> meta.get().stats().inflightBarriers())
        .description("Barriers injected and not yet committed").register(registry);
    Gauge.builder("tide.recoveries", () -> meta.get().stats().recoveries())
        .description("Recoveries since meta started").register(registry);
    Gauge.builder("tide.jobs", () -> meta.get().stats().jobs()).register(registry);
    Gauge.builder("tide.store.ssts", () -> meta.get().committedVersion().getL0().getSstsCount())
        .tag("level", "0").description("SST files in the committed state-store version").register(registry);
    Gauge.builder("tide.store.ssts", () -> levelFiles(meta.get().committedVersion()))
        .tag("level", "1+").register(registry);
    Gauge.builder("tide.store.bytes", () -> bytes(List.of(meta.get().committedVersion().getL0())))
        .tag("level", "0").baseUnit("bytes").description("Bytes of SST files in the committed version").register(registry);
    Gauge.builder("tide.store.bytes", () -> bytes(meta.get().committedVersion().getLevelsList()))
        .tag("level", "1+").baseUnit("bytes").register(registry);
    actorsPerWorker = MultiGauge.builder("tide.worker.actors").description("Actors running on a worker, as of its last heartbeat")
        .register(registry);
    workerAlive = MultiGauge.builder("tide.worker.alive").description("1 while meta counts the worker alive").register(registry);
    sourceEvents = MultiGauge.builder("tide.source.events.committed")
        .description("Events a source fragment emitted up to the committed epoch; its rate is the fragment's throughput")
        .register(registry);
    fragmentRowsIn = MultiGauge.builder("tide.fragment.rows.in.per.second")
        .description("Rows a fragment's actors read (a source: produced) per second, over the last 30 s of committed epochs").register(registry);
    fragmentRowsOut = MultiGauge.builder("tide.fragment.rows.out.per.second")
        .description("Rows a fragment's actors dispatched per second, over the last 30 s").register(registry);
    fragmentBusy = MultiGauge.builder("tide.fragment.busy").baseUnit("ratio")
        .description("Fraction of a fragment's actor time in operator work (not waiting for input, not blocked on output)").register(registry);
    fragmentBackpressure = MultiGauge.builder("tide.fragment.backpressure").baseUnit("ratio")
        .description("Fraction of a fragment's actor time blocked on output").register(registry);
    fragmentBacklog = MultiGauge.builder("tide.fragment.backlog").baseUnit("rows")
        .description("A source fragment's rows behind what it could read (events behind schedule, consumer lag)").register(registry);
    fragmentSkipped = MultiGauge.builder("tide.source.skipped.records").baseUnit("records")
        .description("Malformed records a source fragment skipped (on-error=skip) since its job started, as of the newest committed epoch")
        .register(registry);
  }

  /** Feeds the barrier latency timer from meta's commits; call again after meta restarts. */
  public void attach(Meta m) {
    Timer latency = Timer.builder("tide.barrier.latency").description("Inject-to-commit latency of checkpoint barriers")
        .publishPercentiles(0.5, 0.99).publishPercentileHistogram().minimumExpectedValue(Duration.ofMillis(1))
        .maximumExpectedValue(Duration.ofMinutes(1)).register(registry);
    m.onBarrierCommitted(ms -> latency.record(Duration.ofMillis(ms)));
    // Prometheus' histogram type has no quantiles, so the registry drops the timer's percentiles:
    // they are exported as gauges of their own (tide_barrier_latency_p50_seconds, ..._p99_seconds).
    for (double q : new double[] {0.5, 0.99}) {
      Gauge.builder("tide.barrier.latency.p" + Math.round(q * 100), latency, t -> percentileSeconds(t, q)).baseUnit("seconds")
          .description("Inject-to-commit latency of checkpoint barriers, " + Math.round(q * 100)
              + "th percentile over the last minutes (micrometer's decaying window)").register(registry);
    }
  }

  private static double percentileSeconds(Timer t, double q) {
    for (io.micrometer.core.instrument.distribution.ValueAtPercentile v : t.takeSnapshot().percentileValues()) {
      if (v.percentile() == q) {
        return v.value(java.util.concurrent.TimeUnit.SECONDS);
      }
    }
    return Double.NaN;
  }

  /** The Prometheus text exposition of every metric, refreshed now. */
  public String scrape() {
    List<dev.tide.meta.core.MetaCore.WorkerHealth> workers = meta.get().workerHealth();
    actorsPerWorker.register(workers.stream().map(w -> MultiGauge.Row.of(Tags.of("worker", String.valueOf(w.worker().id())),
        w.actors())).toList(), true);
    workerAlive.register(workers.stream().map(w -> MultiGauge.Row.of(Tags.of("worker", String.valueOf(w.worker().id())),
        w.alive() ? 1 : 0)).toList(), true);
    List<MultiGauge.Row<?>> sources = new java.util.ArrayList<>();
    for (var job : meta.get().jobs().values()) {
      for (CommittedViews.SourceProgress p : views.sourceProgress(job)) {
        sources.add(MultiGauge.Row.of(Tags.of("job", job.getName(), "table", p.table()), p.emitted()));
      }
    }
    sourceEvents.register(sources, true);
    List<MultiGauge.Row<?>> in = new java.util.ArrayList<>();
    List<MultiGauge.Row<?>> out = new java.util.ArrayList<>();
    List<MultiGauge.Row<?>> busy = new java.util.ArrayList<>();
    List<MultiGauge.Row<?>> blocked = new java.util.ArrayList<>();
    List<MultiGauge.Row<?>> backlog = new java.util.ArrayList<>();
    List<MultiGauge.Row<?>> skipped = new java.util.ArrayList<>();
    Meta m = meta.get();
    for (var job : m.snapshot().jobs().values()) {
      var stats = dev.tide.meta.admin.AdminViews.withStats(dev.tide.meta.admin.AdminViews.fragments(job), m, LOAD_WINDOW_MS);
      for (var f : stats.getFragmentsList()) {
        if (!f.hasStats()) {
          continue;
        }
        Tags tags = Tags.of("job", job.definition().getName(), "fragment", String.valueOf(f.getFragmentId()));
        in.add(MultiGauge.Row.of(tags, f.getStats().getRowsInPerSecond()));
        out.add(MultiGauge.Row.of(tags, f.getStats().getRowsOutPerSecond()));
        busy.add(MultiGauge.Row.of(tags, f.getStats().getBusy()));
        blocked.add(MultiGauge.Row.of(tags, f.getStats().getBackpressure()));
        if (f.getStats().getBacklog() >= 0) {
          backlog.add(MultiGauge.Row.of(tags, f.getStats().getBacklog()));
        }
        if (f.getStats().getSkipped() >= 0) {
          skipped.add(MultiGauge.Row.of(tags, f.getStats().getSkipped()));
        }
      }
    }
    fragmentRowsIn.register(in, true);
    fragmentRowsOut.register(out, true);
    fragmentBusy.register(busy, true);
    fragmentBackpressure.register(blocked, true);
    fragmentBacklog.register(backlog, true);
    fragmentSkipped.register(skipped, true);
    return registry.scrape();
  }

  /** The registry, for more meters (optimizer groups register theirs here). */
  public PrometheusMeterRegistry registry() {
    return registry;
  }

  private static int levelFiles(StoreVersion v) {
    return v.getLevelsList().stream().mapToInt(Level::getSstsCount).sum();
  }

  private static long bytes(List<Level> levels) {
    return levels.stream().flatMap(l -> l.getSstsList().stream()).mapToLong(SstInfo::getFileSize).sum();
  }
}
