package dev.tide.optimizer.workload;

import java.util.EnumSet;
import java.util.Set;

/**
 * State of one compaction task. A task occupies an optimizer thread from SCHEDULED until it leaves
 * ACKED.
 *
 * <pre>
 * from        to                      when
 * PLANNED     SCHEDULED               a poll hands it to a thread
 * SCHEDULED   ACKED                   the thread acknowledges it
 * SCHEDULED   PLANNED                 reclaim: not acked within optimizer.task-ack-timeout, or its instance left
 * ACKED       SUCCESS | FAILED        the thread completes it with outputs or an error
 * ACKED       PLANNED                 reclaim: its instance expired or unregistered
 * FAILED      PLANNED                 retry, while attempts are left
 * any         CANCELED                its table's optimizing process is abandoned
 * </pre>
 */
public enum TaskState {
  PLANNED,
  SCHEDULED,
  ACKED,
  SUCCESS,
  FAILED,
  CANCELED;

  /** Whether the transition {@code this → next} is in the table above. */
  public boolean canMoveTo(TaskState next) {
    return next == CANCELED ? this != CANCELED : successors().contains(next);
  }

  private Set<TaskState> successors() {
    return switch (this) {
      case PLANNED -> EnumSet.of(SCHEDULED);
      case SCHEDULED -> EnumSet.of(ACKED, PLANNED);
      case ACKED -> EnumSet.of(SUCCESS, FAILED, PLANNED);
      case FAILED -> EnumSet.of(PLANNED);
      case SUCCESS, CANCELED -> EnumSet.noneOf(TaskState.class);
    };
  }

  /** Whether a task in this state holds a thread. */
  public boolean occupiesThread() {
    return this == SCHEDULED || this == ACKED;
  }
}
