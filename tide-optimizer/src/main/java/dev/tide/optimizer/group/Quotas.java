package dev.tide.optimizer.group;

import java.util.List;

/**
 * Quota arithmetic of {@code self-optimizing.quota} (pure). A quota ≤ 1 is a share of the group's
 * threads, a quota > 1 an absolute thread limit.
 */
public final class Quotas {
  private Quotas() {}

  /** Whether {@code quota} is a share of the group's threads (≤ 1) rather than an absolute limit. */
  public static boolean proportional(double quota) {
    return quota <= 1.0;
  }

  /** A table's thread limit: {@code ceil(quota × groupThreads)} for a share, {@code (int) quota} otherwise. */
  public static int limit(double quota, int groupThreads) {
    if (groupThreads < 0) {
      throw new IllegalArgumentException("group threads must be ≥ 0, got " + groupThreads);
    }
    return proportional(quota) ? (int) Math.ceil(quota * groupThreads) : (int) quota;
  }

  /**
   * The PLANNED tasks of one table that more threads could serve. A proportional table counts all of
   * them: adding threads raises its limit. An absolute table counts only its free slots,
   * {@code min(planned, max(0, (int) quota − occupied))}: scaling cannot raise a fixed limit.
   *
   * <p>The group's thread count does not enter: for a proportional table the limit grows with the
   * group (see {@link #limit}), which is exactly why its whole backlog counts.
   */
  public static int serviceable(TableLoad t) {
    if (proportional(t.quota())) {
      return t.plannedTasks();
    }
    return Math.min(t.plannedTasks(), Math.max(0, (int) t.quota() - t.occupiedThreads()));
  }

  /** The sum of {@link #serviceable(TableLoad)} over a group's tables. */
  public static int serviceable(List<TableLoad> tables) {
    long sum = 0;
    for (TableLoad t : tables) {
      sum += serviceable(t);
    }
    return (int) Math.min(Integer.MAX_VALUE, sum);
  }
}
