package dev.tide.optimizer.dra;

/**
 * A draining instance: it gets no new task and is removed once idle, or forcibly at
 * {@code startedAtMs + drain-timeout}. Removal releases its resource; a failed release keeps the drain
 * and is decided again at {@code nextAttemptMs}; a confirmed one leaves the drain waiting for the
 * instance to leave (it still counts as gone for demand, and no longer against the cap). An instance
 * gone before its removal was decided (or after a failed one) has {@code resourceId} released at once.
 *
 * @param startedAtMs when the drain started
 * @param removalAttempts removals decided so far
 * @param nextAttemptMs earliest time of the next removal (the drain start, then the retry after a failure)
 * @param released whether the provider confirmed the release
 * @param resourceId the provider resource the instance runs in
 * @param threads the instance's threads
 */
public record Drain(long startedAtMs, int removalAttempts, long nextAttemptMs, boolean released, String resourceId, int threads) {
  /** A drain of the instance of {@code resourceId} that starts at {@code nowMs}. */
  public static Drain start(long nowMs, String resourceId, int threads) {
    return new Drain(nowMs, 0, nowMs, false, resourceId, threads);
  }

  Drain attempted(long retryAtMs) {
    return new Drain(startedAtMs, removalAttempts + 1, retryAtMs, false, resourceId, threads);
  }

  Drain confirmedReleased() {
    return new Drain(startedAtMs, removalAttempts, nextAttemptMs, true, resourceId, threads);
  }
}
