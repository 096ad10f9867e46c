package dev.tide.optimizer.dra;

/** What became of a {@link ScaleUp} request when the shell realized it; reported in the next snapshot. */
public enum RequestOutcome {
  /** The provider accepted the request and its record was persisted: counts until registration or boot deadline. */
  LAUNCHED,
  /** The provider accepted the request but its record failed to persist: the entry is kept all the same. */
  LAUNCHED_UNPERSISTED,
  /** The provider refused synchronously: the entry is dropped, so the demand is retried on a later round. */
  FAILED
}
