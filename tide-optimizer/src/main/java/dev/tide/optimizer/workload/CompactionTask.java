package dev.tide.optimizer.workload;

import dev.tide.proto.store.SstInfo;
import java.util.List;
import java.util.Objects;

/**
 * One task of a table's compaction with its place in the {@link TaskState} machine.
 *
 * <p>Thread-safety: guarded by the owning {@link OptimizingQueue}; a {@link TaskView} is the copy
 * handed out.
 */
final class CompactionTask {
  final long id;
  final TaskSpec spec;
  /** When the task was planned: packing hands it to a later instance only once it has waited. */
  final long plannedAtMs;
  TaskState state = TaskState.PLANNED;
  /** Counts schedulings; names the current one so late results of earlier ones are refused. */
  int attempt;
  int failures;
  String instanceId;
  int thread;
  long scheduledAtMs;
  List<SstInfo> outputs = List.of();
  String lastError = "";

  CompactionTask(long id, TaskSpec spec, long plannedAtMs) {
    this.id = id;
    this.spec = spec;
    this.plannedAtMs = plannedAtMs;
  }

  /** Moves to {@code next}, checking the transition table. */
  void moveTo(TaskState next) {
    if (!state.canMoveTo(next)) {
      throw new IllegalStateException("task " + id + " of table " + spec.tableId() + " cannot move from " + state + " to " + next);
    }
    state = next;
    if (!next.occupiesThread()) {
      instanceId = null;
    }
  }

  boolean heldBy(String instance, int attemptNo) {
    return state.occupiesThread() && Objects.equals(instanceId, instance) && attempt == attemptNo;
  }

  TaskView view() {
    return new TaskView(id, attempt, spec, state);
  }
}
