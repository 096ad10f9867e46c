package dev.tide.dashboard;

import dev.tide.cluster.CommittedViews;
import dev.tide.meta.Meta;
import dev.tide.meta.MetaStats;
import dev.tide.proto.admin.AdminServiceGrpc;
import dev.tide.proto.admin.FragmentsRequest;
import dev.tide.proto.admin.FragmentsResponse;
import dev.tide.proto.plan.JobDefinition;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Samples meta once per interval for the dashboard's charts: committed epoch, barrier latency p50
 * and p99 of the barriers committed in the interval, committed source rows per second per job; and
 * keeps, per job, the layout before its last change (for the placement page). Keeps the latest
 * {@code capacity} samples.
 *
 * <p>Thread-safety: samples on its own thread; readers on any thread.
 */
final class Sampler implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(Sampler.class);

  /** One interval. {@code rowsPerSec}: committed source rows per second, by job name. */
  record Sample(long atMs, long committedEpoch, long p50Ms, long p99Ms, Map<String, Double> rowsPerSec) {}

  /** A job's layout before its latest change, and when the change was seen. */
  record Change(long atMs, FragmentsResponse before) {}

  private final Meta meta;
  private final CommittedViews views;
  private final AdminServiceGrpc.AdminServiceBlockingStub admin;
  private final int capacity;
  private final ArrayDeque<Sample> samples = new ArrayDeque<>();
  private final List<Long> latencies = new ArrayList<>();
  private final Map<String, Change> changes = new HashMap<>();
  // Sampler thread only.
  private final Map<String, Long> lastRows = new HashMap<>();
  private final Map<String, FragmentsResponse> lastLayout = new HashMap<>();
  private long lastAtMs = -1;
  private ScheduledExecutorService executor;

  Sampler(Meta meta, CommittedViews views, AdminServiceGrpc.AdminServiceBlockingStub admin, int capacity) {
    this.meta = meta;
    this.views = views;
    this.admin = admin;
    this.capacity = capacity;
    meta.onBarrierCommitted(ms -> {
      synchronized (latencies) {
        latencies.add(ms);
      }
    });
  }

  void start(long intervalMs) {
    executor = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "dashboard-sampler");
      t.setDaemon(true);
      return t;
    });
    executor.scheduleWithFixedDelay(() -> {
      try {
        sample(meta.clock().nowMillis());
      } catch (RuntimeException e) {
        LOG.debug("dashboard sample skipped: {}", e.toString()); // meta recovering or shutting down: the next one retries
      }
    }, 0, intervalMs, TimeUnit.MILLISECONDS);
  }

  void sample(long nowMs) {
    long[] lat;
    synchronized (latencies) {
      lat = latencies.stream().mapToLong(Long::longValue).sorted().toArray();
      latencies.clear();
    }
    MetaStats stats = meta.stats();
    Map<String, Double> rates = new TreeMap<>();
    for (JobDefinition job : meta.jobs().values()) {
      long rows = views.sourceProgress(job).stream().mapToLong(CommittedViews.SourceProgress::emitted).sum();
      Long before = lastRows.put(job.getName(), rows);
      if (before != null && lastAtMs >= 0 && nowMs > lastAtMs) {
        rates.put(job.getName(), (rows - before) * 1000.0 / (nowMs - lastAtMs));
      }
      FragmentsResponse layout = admin.withDeadlineAfter(30, TimeUnit.SECONDS)
          .fragments(FragmentsRequest.newBuilder().setJob(job.getName()).build());
      FragmentsResponse old = lastLayout.put(job.getName(), layout);
      if (old != null && !old.getFragmentsList().equals(layout.getFragmentsList())) {
        synchronized (changes) {
          changes.put(job.getName(), new Change(nowMs, old));
        }
      }
    }
    lastRows.keySet().retainAll(meta.jobs().keySet());
    lastLayout.keySet().retainAll(lastRows.keySet());
    lastAtMs = nowMs;
    Sample s = new Sample(nowMs, stats.committedEpoch(), percentile(lat, 0.5), percentile(lat, 0.99), rates);
    synchronized (samples) {
      if (samples.size() == capacity) {
        samples.removeFirst();
      }
      samples.addLast(s);
    }
  }

  /** -1 when no barrier committed in the interval. */
  private static long percentile(long[] sorted, double q) {
    return sorted.length == 0 ? -1 : sorted[Math.min(sorted.length - 1, (int) Math.ceil(q * sorted.length) - 1)];
  }

  Change lastChange(String job) {
    synchronized (changes) {
      return changes.get(job);
    }
  }

  List<Sample> history() {
    synchronized (samples) {
      return List.copyOf(samples);
    }
  }

  /** {@code {"samples":[{"atMs":..,"committedEpoch":..,"p50Ms":..,"p99Ms":..,"rowsPerSec":{"q1":..}}]}}; -1 latency: none. */
  String historyJson() {
    StringBuilder b = new StringBuilder("{\"samples\":[");
    List<Sample> h = history();
    for (int i = 0; i < h.size(); i++) {
      Sample s = h.get(i);
      b.append(i > 0 ? "," : "").append("{\"atMs\":").append(s.atMs()).append(",\"committedEpoch\":").append(s.committedEpoch())
          .append(",\"p50Ms\":").append(s.p50Ms()).append(",\"p99Ms\":").append(s.p99Ms()).append(",\"rowsPerSec\":{");
      int j = 0;
      for (Map.Entry<String, Double> e : s.rowsPerSec().entrySet()) {
        b.append(j++ > 0 ? "," : "").append(Dashboard.quote(e.getKey())).append(':').append(Math.round(e.getValue() * 10) / 10.0);
      }
      b.append("}}");
    }
    return b.append("]}").toString();
  }

  @Override
  public void close() {
    if (executor != null) {
      executor.shutdownNow();
    }
  }
}
