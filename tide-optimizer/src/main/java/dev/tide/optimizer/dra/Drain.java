package dev.tide.optimizer.dra;

/**
 * A draining instance: it gets no new task and is removed once idle, or forcibly at
 * {@code startedAtMs + drain-timeout}.
 *
 * @param startedAtMs when the drain started
 * @param removalAttempts removals decided so far (a failed release keeps the drain, and removal is retried)
 */
public record Drain(long startedAtMs, int removalAttempts) {
  Drain attempted() {
    return new Drain(startedAtMs, removalAttempts + 1);
  }
}
