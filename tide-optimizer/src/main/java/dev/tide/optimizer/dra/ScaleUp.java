package dev.tide.optimizer.dra;

import java.util.List;
import java.util.Objects;

/**
 * Request {@code instances} instances of {@code threadsPerInstance} threads, one provider request per
 * entry of {@code resourceIds} (the ids the instances will register with).
 */
public record ScaleUp(Kind kind, int instances, int threadsPerInstance, List<String> resourceIds, String reason) {
  /** Why instances are added. */
  public enum Kind {
    /** Effective threads below {@code min-parallelism}: no timing gate. */
    FLOOR,
    /** Busy + serviceable PLANNED tasks exceed effective threads: ramped. */
    DEMAND,
    /** PENDING tables while every thread is busy (or there is none): one probe instance. */
    PROBE
  }

  public ScaleUp {
    Objects.requireNonNull(kind, "kind");
    resourceIds = List.copyOf(resourceIds);
    if (instances < 1 || resourceIds.size() != instances) {
      throw new IllegalArgumentException("a scale-up needs ≥ 1 instance and one resource id each");
    }
  }

  public int threads() {
    return instances * threadsPerInstance;
  }
}
