package dev.tide.stream.actor;

/**
 * One actor's load over one epoch (from its previous barrier to this one).
 *
 * @param elapsedNanos wall time of the interval
 * @param rowsIn rows read from inputs; for a source actor, rows its source produced
 * @param rowsOut rows dispatched downstream
 * @param idleNanos time waiting for input, for a source's schedule or for a commit
 * @param blockedNanos time waiting for room downstream (backpressure)
 * @param backlog for a source actor, rows behind what it could read now (rate-paced Nexmark:
 *     events behind schedule; Kafka: consumer lag); -1 when not a source or not known
 * @param skipped for a source actor, malformed records skipped in its splits in total (see
 *     {@link SourceOperator#skipped()}); -1 when not a source or not known
 */
public record ActorLoad(long actorId, long elapsedNanos, long rowsIn, long rowsOut, long idleNanos, long blockedNanos, long backlog,
    long skipped) {
  /** Time in operator work: the interval without idle and blocked time. */
  public long busyNanos() {
    return Math.max(0, elapsedNanos - idleNanos - blockedNanos);
  }
}
