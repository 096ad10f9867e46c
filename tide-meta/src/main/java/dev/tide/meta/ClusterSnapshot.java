package dev.tide.meta;

import dev.tide.meta.scale.JobIntent;
import dev.tide.meta.schedule.JobLayout;
import dev.tide.meta.schedule.Worker;
import dev.tide.proto.plan.JobDefinition;
import java.util.List;
import java.util.Map;

/**
 * A consistent view of the cluster for tools and policies.
 *
 * @param workers registered workers, including draining ones
 * @param draining ids of draining workers
 * @param jobs every job with its intent and layout, by name
 */
public record ClusterSnapshot(List<Worker> workers, List<Integer> draining, Map<String, JobView> jobs, MetaStats stats) {
  /** One job as seen by a snapshot. */
  public record JobView(JobDefinition definition, JobIntent intent, JobLayout layout, boolean paused, boolean rescheduling) {}
}
