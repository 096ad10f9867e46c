package dev.tide.optimizer.group;

import java.util.Objects;

/**
 * One table's load on its optimizer group, as the keeper's snapshot sees it.
 *
 * @param table table name
 * @param status optimizing status
 * @param quota {@code self-optimizing.quota}: ≤ 1 a share of the group's threads, > 1 an absolute limit
 * @param plannedTasks tasks in PLANNED
 * @param occupiedThreads tasks in SCHEDULED or ACKED (each holds one thread)
 */
public record TableLoad(String table, TableStatus status, double quota, int plannedTasks, int occupiedThreads) {
  /** The default {@code self-optimizing.quota}. */
  public static final double DEFAULT_QUOTA = 0.5;

  public TableLoad {
    Objects.requireNonNull(table, "table");
    Objects.requireNonNull(status, "status");
    if (!(quota > 0) || Double.isInfinite(quota)) {
      throw new IllegalArgumentException("table " + table + ": self-optimizing.quota " + quota + " must be a positive finite number");
    }
    if (plannedTasks < 0 || occupiedThreads < 0) {
      throw new IllegalArgumentException("table " + table + ": task counts must be ≥ 0, got planned " + plannedTasks
          + ", occupied " + occupiedThreads);
    }
  }
}
