package dev.tide.stream.actor;

import dev.tide.proto.stream.Mutation;

/**
 * A barrier as it flows through actors: data before it belongs to {@code prevEpoch}, data after it
 * to {@code currEpoch}. {@code mutation} is null for a plain checkpoint barrier.
 */
public record Barrier(long currEpoch, long prevEpoch, Mutation mutation, long injectTimeMs) {
  public static Barrier of(dev.tide.proto.stream.Barrier p) {
    return new Barrier(p.getCurrEpoch(), p.getPrevEpoch(), p.hasMutation() ? p.getMutation() : null, p.getInjectTimeMs());
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

  /** True if this barrier's Stop mutation names the actor. */
  public boolean stops(long actorId) {
    return mutation != null && mutation.hasStop() && mutation.getStop().getActorIdsList().contains(actorId);
  }
}
