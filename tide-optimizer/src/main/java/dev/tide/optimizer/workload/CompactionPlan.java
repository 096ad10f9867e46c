package dev.tide.optimizer.workload;

import dev.tide.proto.store.SstInfo;
import java.util.List;

/**
 * One table's planned compaction: every input SST is replaced by the union of the tasks' outputs in a
 * single version change once all tasks succeeded.
 *
 * @param tableId the table
 * @param inputs every SST the compaction removes (L0 of the table at planning, then its L1 SSTs)
 * @param tasks disjoint key ranges covering the inputs; empty when there is nothing to do
 */
public record CompactionPlan(long tableId, List<SstInfo> inputs, List<TaskSpec> tasks) {
  public CompactionPlan {
    inputs = List.copyOf(inputs);
    tasks = List.copyOf(tasks);
  }

  public boolean isEmpty() {
    return tasks.isEmpty();
  }
}
