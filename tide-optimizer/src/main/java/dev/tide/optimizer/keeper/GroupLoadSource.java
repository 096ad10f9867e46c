package dev.tide.optimizer.keeper;

import dev.tide.optimizer.dra.InstanceView;
import dev.tide.optimizer.dra.PoolLoad;
import dev.tide.optimizer.group.TableLoad;
import java.util.List;

/**
 * A pool's workload as the scale keeper sees it: what one group needs and which instances serve it.
 * Implemented by the optimizing service that owns tables, tasks and registered optimizers (spec 10),
 * and by meta's compute pool (slots the jobs want, compute nodes); read by the keeper at the start of
 * every round.
 */
public interface GroupLoadSource {
  /** Every table assigned to {@code group}, with its status, quota, PLANNED tasks and occupied threads (none for a compute pool). */
  List<TableLoad> tables(String group);

  /** The group's demand; by default summed from its {@link #tables}. */
  default PoolLoad load(String group) {
    return PoolLoad.ofTables(tables(group));
  }

  /** Optimizer instances registered in {@code group} and not yet expired or removed. */
  List<InstanceView> instances(String group);

  /**
   * Starts a graceful drain: {@code instanceId} gets no new task from now on, and its in-flight tasks
   * run to completion. Idempotent; unknown ids are ignored (the instance already left).
   */
  void drain(String group, String instanceId);

  /**
   * Calls {@code listener} (on any thread, without holding locks of the source) whenever something
   * that can change a keeper decision happens: a table becomes PENDING, tasks are planned, an instance
   * registers, expires or goes idle.
   */
  void addListener(Runnable listener);
}
