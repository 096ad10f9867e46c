package dev.tide.optimizer.dra;

import java.util.Objects;

/**
 * A resource to release that no draining instance stands for: a request whose boot deadline passed
 * before it registered, or the resource of a drained instance that was gone before its removal. It may still start (an unschedulable pod scheduled later), so until the
 * provider confirms the release it counts against {@code max-parallelism}, though not as capacity.
 *
 * @param resourceId the provider resource
 * @param threads the threads it was requested with
 * @param sinceMs when the release was decided
 * @param attempts releases decided so far
 * @param nextAttemptMs when the release is decided again if the last one failed
 */
public record PendingRelease(String resourceId, int threads, long sinceMs, int attempts, long nextAttemptMs) {
  public PendingRelease {
    Objects.requireNonNull(resourceId, "resourceId");
    if (threads < 1) {
      throw new IllegalArgumentException("release of " + resourceId + ": threads must be ≥ 1, got " + threads);
    }
  }

  /** The same release, decided once more at {@code nowMs}; the next attempt is due at {@code retryAtMs}. */
  PendingRelease attempted(long retryAtMs) {
    return new PendingRelease(resourceId, threads, sinceMs, attempts + 1, retryAtMs);
  }
}
