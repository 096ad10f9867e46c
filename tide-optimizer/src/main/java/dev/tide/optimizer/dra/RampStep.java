package dev.tide.optimizer.dra;

import java.util.List;
import java.util.Objects;

/**
 * The last demand-driven add, kept for one round: if any of its requests fails synchronously, the ramp
 * goes back to {@code ramp}, so the failed step is retried instead of skipped (spec 13).
 *
 * @param ramp the ramp the add was made with
 * @param resourceIds the requests of the add
 */
public record RampStep(int ramp, List<String> resourceIds) {
  public RampStep {
    Objects.requireNonNull(resourceIds, "resourceIds");
    resourceIds = List.copyOf(resourceIds);
  }
}
