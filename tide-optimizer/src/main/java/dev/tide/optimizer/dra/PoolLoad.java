package dev.tide.optimizer.dra;

import dev.tide.optimizer.group.Quotas;
import dev.tide.optimizer.group.TableLoad;
import java.util.List;
import java.util.Objects;

/**
 * A pool's demand in units of capacity, as the decision core counts it: threads of optimizer
 * instances, slots of compute nodes.
 *
 * @param busy units in use
 * @param planned work waiting for a unit
 * @param serviceable the part of {@code planned} that more units could serve now (immediate demand)
 * @param tables tables per optimizing status: PENDING ones are the future-demand signal (none for a
 *     pool without such a signal)
 */
public record PoolLoad(int busy, int planned, int serviceable, TableCounts tables) {
  public PoolLoad {
    Objects.requireNonNull(tables, "tables");
    if (busy < 0 || planned < 0 || serviceable < 0 || serviceable > planned) {
      throw new IllegalArgumentException("need busy ≥ 0 and 0 ≤ serviceable ≤ planned, got busy " + busy + ", planned " + planned
          + ", serviceable " + serviceable);
    }
  }

  /** A pool whose waiting work is all serviceable and that has no future-demand signal. */
  public static PoolLoad of(int busy, int waiting) {
    return new PoolLoad(busy, waiting, waiting, TableCounts.NONE);
  }

  /** An optimizer group's load, summed from its tables' (serviceable: {@link Quotas#serviceable}). */
  public static PoolLoad ofTables(List<TableLoad> tables) {
    long busy = 0;
    long planned = 0;
    for (TableLoad t : tables) {
      busy += t.occupiedThreads();
      planned += t.plannedTasks();
    }
    return new PoolLoad((int) Math.min(Integer.MAX_VALUE, busy), (int) Math.min(Integer.MAX_VALUE, planned),
        Quotas.serviceable(tables), TableCounts.of(tables));
  }
}
