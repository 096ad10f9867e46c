package dev.tide.meta.store;

/**
 * The next id of each {@link IdKind}: every id below it may have been handed out, none at or above
 * it has. In {@link MetaStore#commitVersion} the values are floors: a counter is raised to its floor
 * and never lowered, so {@link #NONE} (all zeros) leaves every counter as it is.
 */
public record Counters(long nextJobId, long nextActorId, long nextWorkerId, long nextSstId) {
  /** Raises no counter. */
  public static final Counters NONE = new Counters(0, 0, 0, 0);
  /** The counters of an empty store. */
  public static final Counters INITIAL = new Counters(1, 1, 1, 1);

  public Counters {
    if (nextJobId < 0 || nextActorId < 0 || nextWorkerId < 0 || nextSstId < 0) {
      throw new IllegalArgumentException("counters " + nextJobId + "/" + nextActorId + "/" + nextWorkerId + "/" + nextSstId
          + " (job/actor/worker/sst) are not valid: expected values >= 0");
    }
  }

  public long next(IdKind kind) {
    return switch (kind) {
      case JOB -> nextJobId;
      case ACTOR -> nextActorId;
      case WORKER -> nextWorkerId;
      case SST -> nextSstId;
    };
  }

  public Counters with(IdKind kind, long next) {
    return new Counters(kind == IdKind.JOB ? next : nextJobId, kind == IdKind.ACTOR ? next : nextActorId,
        kind == IdKind.WORKER ? next : nextWorkerId, kind == IdKind.SST ? next : nextSstId);
  }
}
