package dev.tide.meta;

import java.util.List;

/**
 * An automatic controller (autoscaler, cloud manager) deciding reschedules from a snapshot of the
 * cluster. Pure: the same snapshot and {@code nowMs} give the same requests. Its requests go through
 * {@link Meta#reschedule}, the same path as a person's.
 */
public interface ScalingPolicy {
  List<RescheduleRequest> decide(ClusterSnapshot snapshot, long nowMs);
}
