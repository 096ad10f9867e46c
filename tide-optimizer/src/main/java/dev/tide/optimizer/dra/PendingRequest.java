package dev.tide.optimizer.dra;

import java.util.Objects;

/**
 * A requested instance that has not registered yet: it counts toward effective threads from the moment
 * it is requested until it registers (an instance shows {@code resourceId}), its request fails
 * synchronously, or {@code bootDeadlineMs} passes.
 */
public record PendingRequest(String resourceId, int threads, long requestedAtMs, long bootDeadlineMs) {
  public PendingRequest {
    Objects.requireNonNull(resourceId, "resourceId");
    if (threads < 1 || bootDeadlineMs < requestedAtMs) {
      throw new IllegalArgumentException("request " + resourceId + ": threads must be ≥ 1 and the boot deadline not before the request");
    }
  }
}
