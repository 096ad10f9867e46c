package dev.tide.meta.optimize;

import dev.tide.optimizer.group.TableStatus;
import dev.tide.optimizer.workload.TableSettings;
import java.util.Map;

/**
 * A state-store table as the optimizing workload sees it, for operators.
 *
 * @param tableId the table
 * @param settings the group and quota in effect
 * @param properties the properties an operator set (empty: all defaults)
 * @param status its optimizing status (IDLE when it has no L0 SST)
 * @param l0Files L0 SSTs holding the table
 * @param l0Bytes their bytes
 * @param plannedTasks tasks of its compaction waiting for a thread
 * @param runningTasks tasks of its compaction on a thread (SCHEDULED or ACKED)
 */
public record TableInfo(long tableId, TableSettings settings, Map<String, String> properties, TableStatus status, int l0Files,
    long l0Bytes, int plannedTasks, int runningTasks) {
  public TableInfo {
    properties = Map.copyOf(properties);
  }
}
