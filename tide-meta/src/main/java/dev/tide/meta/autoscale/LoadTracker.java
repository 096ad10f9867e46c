package dev.tide.meta.autoscale;

import dev.tide.proto.stream.ActorLoad;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * The load signals workers report with each barrier's collection, kept per fragment and epoch for
 * {@code retentionMs}: the autoscaler's input, {@code /metrics} and {@code tide ctl fragments --stats}.
 * An epoch's sample is complete once the epoch committed (every worker reported it).
 *
 * <p>Thread-safe: reports arrive on RPC threads, readers are the autoscaler and the admin API.
 */
public final class LoadTracker {
  private final long retentionMs;
  /** job → fragment → samples in epoch order. */
  private final Map<Integer, Map<Integer, ArrayDeque<LoadSample>>> samples = new HashMap<>();
  /**
   * job → fragment → epoch → {malformed records its source actors skipped in total, summed; actors
   * that did not know}. An epoch's total holds only when every actor knew.
   */
  private final Map<Integer, Map<Integer, TreeMap<Long, long[]>>> skipped = new HashMap<>();
  /** Epochs of skip counts kept per fragment (only the newest committed one is read). */
  private static final int SKIPPED_EPOCHS = 64;

  public LoadTracker(long retentionMs) {
    this.retentionMs = retentionMs;
  }

  /** Adds one worker's report of {@code epoch}, received at {@code nowMs}. */
  public synchronized void record(long nowMs, long epoch, List<ActorLoad> loads) {
    for (ActorLoad l : loads) {
      ArrayDeque<LoadSample> q = samples.computeIfAbsent(l.getJobId(), j -> new HashMap<>())
          .computeIfAbsent(l.getFragmentId(), f -> new ArrayDeque<>());
      long busy = Math.max(0, l.getElapsedNs() - l.getIdleNs() - l.getBlockedNs());
      add(q, new LoadSample(epoch, nowMs, 0, 0, 0, 0, 0, 0, -1)
          .plus(l.getElapsedNs(), busy, l.getBlockedNs(), l.getRowsIn(), l.getRowsOut(), l.getBacklog()));
      while (!q.isEmpty() && q.peekFirst().atMs() < nowMs - retentionMs) {
        q.pollFirst();
      }
      TreeMap<Long, long[]> s = skipped.computeIfAbsent(l.getJobId(), j -> new HashMap<>())
          .computeIfAbsent(l.getFragmentId(), f -> new TreeMap<>());
      long[] e = s.computeIfAbsent(epoch, x -> new long[2]);
      if (l.getSkipped() >= 0) {
        e[0] += l.getSkipped();
      } else {
        e[1]++;
      }
      while (s.size() > SKIPPED_EPOCHS) {
        s.pollFirstEntry();
      }
    }
  }

  /**
   * Malformed records a source fragment skipped in total, as of its newest epoch up to
   * {@code maxEpoch} (a committed one: every actor reported) in which every actor knew its count
   * (right after a rescale an actor knows once it has read its new splits' state); -1 if there is none.
   */
  public synchronized long skipped(int jobId, int fragmentId, long maxEpoch) {
    TreeMap<Long, long[]> s = skipped.getOrDefault(jobId, Map.of()).get(fragmentId);
    if (s == null) {
      return -1;
    }
    for (long[] e : s.headMap(maxEpoch, true).descendingMap().values()) {
      if (e[1] == 0) {
        return e[0];
      }
    }
    return -1;
  }

  /** Merges {@code one} (one actor's) into the sample of its epoch, keeping epoch order. */
  private static void add(ArrayDeque<LoadSample> q, LoadSample one) {
    List<LoadSample> later = new ArrayList<>();
    while (!q.isEmpty() && q.peekLast().epoch() > one.epoch()) {
      later.add(0, q.pollLast());
    }
    LoadSample same = !q.isEmpty() && q.peekLast().epoch() == one.epoch() ? q.pollLast() : null;
    q.addLast(same == null ? one : same.plus(one.elapsedNanos(), one.busyNanos(), one.blockedNanos(), one.rowsIn(), one.rowsOut(),
        one.backlog()));
    q.addAll(later);
  }

  /** The samples of a fragment's epochs up to {@code maxEpoch} (committed ones), oldest first. */
  public synchronized List<LoadSample> samples(int jobId, int fragmentId, long maxEpoch) {
    ArrayDeque<LoadSample> q = samples.getOrDefault(jobId, Map.of()).get(fragmentId);
    if (q == null) {
      return List.of();
    }
    List<LoadSample> out = new ArrayList<>(q.size());
    for (LoadSample s : q) {
      if (s.epoch() <= maxEpoch) {
        out.add(s);
      }
    }
    return out;
  }

  /** Drops what is kept of jobs that no longer exist. */
  public synchronized void retainJobs(Set<Integer> jobIds) {
    for (Iterator<Integer> it = samples.keySet().iterator(); it.hasNext();) {
      if (!jobIds.contains(it.next())) {
        it.remove();
      }
    }
    skipped.keySet().retainAll(jobIds);
  }
}
