package dev.tide.optimizer.dra;

import java.util.Objects;
import java.util.Optional;

/**
 * A registered (not expired) optimizer instance as the snapshot sees it.
 *
 * @param instanceId the registration token
 * @param threads threads of the instance
 * @param inFlightTasks tasks SCHEDULED or ACKED on it
 * @param resourceId the provider resource it runs in, present iff the provider launched it (then equal
 *     to the id of the {@link PendingRequest} that asked for it)
 * @param lastTaskMs when it was last handed a task or finished one, {@link Long#MIN_VALUE} if never: a
 *     task that started and ended between two rounds still counts as activity for idle tracking
 * @param leaving whether it is being drained by someone other than the keeper (a person's {@code tide ctl
 *     worker drain} of a compute node): the keeper adopts the drain of a launched instance and releases its
 *     resource once it is idle, as after a drain of its own, instead of taking it for a stray resource
 */
public record InstanceView(String instanceId, int threads, int inFlightTasks, Optional<String> resourceId, long lastTaskMs,
    boolean leaving) {
  public InstanceView {
    Objects.requireNonNull(instanceId, "instanceId");
    Objects.requireNonNull(resourceId, "resourceId");
    if (threads < 1 || inFlightTasks < 0) {
      throw new IllegalArgumentException("instance " + instanceId + ": threads must be ≥ 1 and in-flight tasks ≥ 0, got "
          + threads + " and " + inFlightTasks);
    }
  }

  /** An instance the provider launched for resource {@code resourceId}. */
  public static InstanceView launched(String instanceId, int threads, int inFlightTasks, String resourceId) {
    return new InstanceView(instanceId, threads, inFlightTasks, Optional.of(resourceId), Long.MIN_VALUE, false);
  }

  /** An instance started by hand (not a scale-down candidate). */
  public static InstanceView manual(String instanceId, int threads, int inFlightTasks) {
    return new InstanceView(instanceId, threads, inFlightTasks, Optional.empty(), Long.MIN_VALUE, false);
  }

  /** The same instance, last handed or finishing a task at {@code atMs}. */
  public InstanceView withLastTaskAt(long atMs) {
    return new InstanceView(instanceId, threads, inFlightTasks, resourceId, atMs, leaving);
  }

  /** The same instance, being drained by someone other than the keeper. */
  public InstanceView asLeaving() {
    return new InstanceView(instanceId, threads, inFlightTasks, resourceId, lastTaskMs, true);
  }

  public boolean providerLaunched() {
    return resourceId.isPresent();
  }
}
