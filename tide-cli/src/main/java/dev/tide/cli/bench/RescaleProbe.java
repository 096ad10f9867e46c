package dev.tide.cli.bench;

import dev.tide.common.store.VersionDeltas;
import dev.tide.meta.Meta;
import dev.tide.meta.MetaStats;
import dev.tide.proto.store.SstInfo;
import dev.tide.proto.store.StoreVersion;
import dev.tide.storage.StateStore;
import dev.tide.storage.object.ObjectStore;
import dev.tide.storage.sst.BlockCache;
import dev.tide.stream.nexmark.NexmarkGenerator;
import dev.tide.stream.nexmark.NexmarkTable;
import dev.tide.stream.state.StateTable;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * Watches a running job from outside, as any client of the committed state can: no hook in the
 * engine. A daemon thread polls meta's committed version and barrier statistics every
 * {@link #POLL_NANOS}; at each newly committed epoch it reads the committed offsets of both sources'
 * splits from the state store and records a {@link RescaleCommit}.
 *
 * <p>Timing: a commit is seen at most one poll after meta publishes it; meta's own
 * {@code barrierLatencyMs} (whole milliseconds) then dates the barrier's injection, which is when
 * the sources saved the offsets of that epoch. Meta measures that latency when it starts the
 * commit, before it writes the meta store, so the injection is dated late by that write; only the
 * write's variation from one commit to the next shifts a window's length. Epochs committed within
 * one poll are seen as one.
 *
 * <p>Thread-safety: the probe thread writes; {@link #commits()} and the other accessors may be
 * called from any thread.
 */
public final class RescaleProbe implements AutoCloseable {
  /** Poll period of the committed version: reading it is a volatile read, so polling is cheap. */
  public static final long POLL_NANOS = TimeUnit.MILLISECONDS.toNanos(1);
  /** How long to wait for meta's statistics to catch up with a version just seen, and how often to look. */
  private static final long STATS_WAIT_NANOS = TimeUnit.MILLISECONDS.toNanos(500);
  private static final long STATS_POLL_NANOS = TimeUnit.MICROSECONDS.toNanos(100);

  private final Meta meta;
  private final RescaleJob.CompiledSource live;
  private final RescaleJob.CompiledSource backfill;
  private final long backfillLimit;
  private final StateStore reader;
  private final Thread thread;
  private final List<RescaleCommit> commits = new ArrayList<>();
  private volatile boolean running = true;
  private volatile boolean backfillDone;
  private volatile RuntimeException failure;

  /**
   * @param objects the cluster's object store (read only)
   */
  public RescaleProbe(Meta meta, ObjectStore objects, RescaleJob.CompiledSource live, RescaleJob.CompiledSource backfill) {
    this.meta = meta;
    this.live = live;
    this.backfill = backfill;
    this.backfillLimit = NexmarkGenerator.ordinalsBelow(NexmarkTable.BID, backfill.events());
    this.reader = new StateStore(objects, new BlockCache(16L << 20), "state", () -> {
      throw new IllegalStateException("the rescale probe only reads");
    });
    this.thread = new Thread(this::run, "rescale-probe");
    this.thread.setDaemon(true);
  }

  public void start() {
    thread.start();
  }

  /** Commits seen so far, oldest first. */
  public List<RescaleCommit> commits() {
    checkHealthy();
    synchronized (commits) {
      return List.copyOf(commits);
    }
  }

  /** The newest commit seen, or null. */
  public RescaleCommit latest() {
    checkHealthy();
    synchronized (commits) {
      return commits.isEmpty() ? null : commits.get(commits.size() - 1);
    }
  }

  /** True once every backfill split's committed offset is past its last bid. */
  public boolean backfillDone() {
    checkHealthy();
    return backfillDone;
  }

  private void checkHealthy() {
    RuntimeException f = failure;
    if (f != null) {
      throw new IllegalStateException("the rescale probe failed reading committed state: " + f.getMessage(), f);
    }
  }

  private void run() {
    long seenEpoch = 0;
    try {
      while (running) {
        StoreVersion v = meta.committedVersion();
        if (v.getMaxCommittedEpoch() > seenEpoch) {
          long observed = System.nanoTime();
          seenEpoch = v.getMaxCommittedEpoch();
          record(v, observed);
        }
        LockSupport.parkNanos(POLL_NANOS);
      }
    } catch (RuntimeException e) {
      if (running) {
        failure = e;
      }
    }
  }

  private void record(StoreVersion v, long observedNanos) {
    long epoch = v.getMaxCommittedEpoch();
    // Meta reads its clock, writes its store, publishes the version, sends it to the workers and only
    // then updates its statistics; their barrier latency runs up to the clock reading, so it is
    // subtracted from when the version was seen, the nearest observable moment.
    MetaStats stats = meta.stats();
    long statsSeen = System.nanoTime();
    long deadline = observedNanos + STATS_WAIT_NANOS;
    while (stats.committedEpoch() < epoch && statsSeen < deadline) {
      LockSupport.parkNanos(STATS_POLL_NANOS);
      stats = meta.stats();
      statsSeen = System.nanoTime();
    }
    boolean known = stats.committedEpoch() == epoch;
    long injectNanos = known ? observedNanos - TimeUnit.MILLISECONDS.toNanos(stats.barrierLatencyMs()) : RescaleCommit.UNKNOWN;
    long latencyMs = known ? stats.barrierLatencyMs() : -1;

    reader.commit(v);
    long[] nextEventIds = new long[live.splits()];
    for (int s = 0; s < nextEventIds.length; s++) {
      nextEventIds[s] = NexmarkGenerator.eventId(NexmarkTable.BID, s); // a split not started yet
    }
    for (Object[] row : StateTable.scanAll(reader, live.stateTable())) {
      int split = (Integer) row[0];
      nextEventIds[split] = NexmarkGenerator.eventId(NexmarkTable.BID, (Long) row[1]);
    }
    if (!backfillDone) {
      int finished = 0;
      for (Object[] row : StateTable.scanAll(reader, backfill.stateTable())) {
        if ((Long) row[1] >= backfillLimit) {
          finished++;
        }
      }
      backfillDone = finished == backfill.splits();
    }
    long bytes = 0;
    List<SstInfo> ssts = VersionDeltas.allSsts(v);
    for (SstInfo sst : ssts) {
      bytes += sst.getFileSize();
    }
    RescaleCommit c = new RescaleCommit(epoch, observedNanos, injectNanos, latencyMs, nextEventIds, bytes, ssts.size());
    synchronized (commits) {
      commits.add(c);
    }
  }

  @Override
  public void close() {
    running = false;
    thread.interrupt();
    try {
      thread.join(TimeUnit.SECONDS.toMillis(5));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
