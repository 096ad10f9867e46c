package dev.tide.optimizer.dra;

/**
 * What became of a provider call the shell made for a decision ({@link ScaleUp} request, {@link Removal}
 * or {@link Release}); reported in the next snapshot, never acted on in the round that decided the call.
 */
public enum ProviderOutcome {
  /** The provider accepted the request and its record was persisted: counts until registration or boot deadline. */
  LAUNCHED,
  /** The provider accepted the request but its record failed to persist: the entry is kept all the same. */
  LAUNCHED_UNPERSISTED,
  /** The provider refused the request synchronously: the entry is dropped and the step retried on a later round. */
  REQUEST_FAILED,
  /** The provider confirmed the release: the resource no longer counts against max-parallelism. */
  RELEASED,
  /** The release failed: the resource may still run, so it keeps counting, and the release is retried. */
  RELEASE_FAILED
}
