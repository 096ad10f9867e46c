package dev.tide.optimizer.workload;

/** An ack or completion names a task the caller no longer holds (reclaimed, rescheduled or canceled): drop the result. */
public final class TaskNotHeldException extends RuntimeException {
  public TaskNotHeldException(String message) {
    super(message);
  }
}
