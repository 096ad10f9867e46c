package dev.tide.stream.actor;

import dev.tide.proto.stream.ActorInfo;
import dev.tide.proto.stream.Mutation;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;

/**
 * A barrier as it flows through actors: data before it belongs to {@code prevEpoch}, data after it
 * to {@code currEpoch}. {@code mutation} is null for a plain checkpoint barrier. Immutable and
 * shared by every actor that sees it.
 */
public final class Barrier {
  private final long currEpoch;
  private final long prevEpoch;
  private final Mutation mutation;
  private final long injectTimeMs;
  private final long committedEpoch;
  private final Map<Long, ActorInfo> updates;
  private final Set<Long> dropped;

  public Barrier(long currEpoch, long prevEpoch, Mutation mutation, long injectTimeMs) {
    this(currEpoch, prevEpoch, mutation, injectTimeMs, 0);
  }

  /** @param committedEpoch the cluster's committed epoch when meta injected the barrier (0: not known) */
  public Barrier(long currEpoch, long prevEpoch, Mutation mutation, long injectTimeMs, long committedEpoch) {
    this.committedEpoch = committedEpoch;
    this.currEpoch = currEpoch;
    this.prevEpoch = prevEpoch;
    this.mutation = mutation;
    this.injectTimeMs = injectTimeMs;
    Map<Long, ActorInfo> u = new HashMap<>();
    Set<Long> d = Set.of();
    if (mutation != null && mutation.hasUpdate()) {
      mutation.getUpdate().getActorsList().forEach(a -> u.put(a.getActorId(), a));
      d = Set.copyOf(mutation.getUpdate().getDroppedActorIdsList());
    } else if (mutation != null && mutation.hasStop()) {
      d = Set.copyOf(mutation.getStop().getActorIdsList());
    }
    this.updates = Map.copyOf(u);
    this.dropped = d;
  }

  public static Barrier of(dev.tide.proto.stream.Barrier p) {
    return new Barrier(p.getCurrEpoch(), p.getPrevEpoch(), p.hasMutation() ? p.getMutation() : null, p.getInjectTimeMs(),
        p.getCommittedEpoch());
  }

  public long currEpoch() {
    return currEpoch;
  }

  public long prevEpoch() {
    return prevEpoch;
  }

  public Mutation mutation() {
    return mutation;
  }

  public long injectTimeMs() {
    return injectTimeMs;
  }

  /**
   * The cluster's committed epoch when meta injected this barrier (0: not known): every node can
   * read the state of every epoch up to it, once its store installed that version.
   */
  public long committedEpoch() {
    return committedEpoch;
  }

  /** True if this barrier pauses the sources of the job. */
  public boolean pauses(int jobId) {
    return mutation != null && mutation.hasPause()
        && (mutation.getPause().getJobIdsCount() == 0 || mutation.getPause().getJobIdsList().contains(jobId));
  }

  /** True if this barrier resumes the sources of the job. */
  public boolean resumes(int jobId) {
    return mutation != null && mutation.hasResume()
        && (mutation.getResume().getJobIdsCount() == 0 || mutation.getResume().getJobIdsList().contains(jobId));
  }

  /**
   * Whether the job's sources are paused after this barrier, given that they were {@code paused}
   * before it: a Pause or Resume of the job says so, and so does an Update of the job (which tells
   * the actors it adds, too).
   */
  public boolean pausedAfter(int jobId, boolean paused) {
    if (pauses(jobId)) {
      return true;
    }
    if (resumes(jobId)) {
      return false;
    }
    if (mutation != null && mutation.hasUpdate() && mutation.getUpdate().getJobId() == jobId) {
      return mutation.getUpdate().getPaused();
    }
    return paused;
  }

  /** True if the actor stops after forwarding this barrier (a Stop, or dropped by an Update). */
  public boolean stops(long actorId) {
    return dropped.contains(actorId);
  }

  /** The actor's new configuration if this barrier reschedules it, else null. */
  public ActorInfo updateFor(long actorId) {
    return updates.get(actorId);
  }

  @Override
  public String toString() {
    return "Barrier[" + prevEpoch + "->" + currEpoch + (mutation == null ? "" : ", " + mutation.getKindCase()) + "]";
  }
}
