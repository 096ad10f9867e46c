package dev.tide.meta;

import dev.tide.meta.core.Command;
import dev.tide.meta.scale.Intent;
import dev.tide.meta.scale.JobIntent;
import dev.tide.meta.scale.ReschedulePlan;
import java.util.Objects;

/**
 * A request to change a running job's layout. People ({@code tide ctl}), policies (autoscaler) and
 * meta itself (membership) submit the same typed changes; meta resolves each against the job as it
 * is when the request runs.
 *
 * @param change what to change (see {@link Command.Change})
 * @param dryRun compute and return the diff without applying it
 */
public record RescheduleRequest(String job, Command.Change change, boolean dryRun) {
  public RescheduleRequest {
    Objects.requireNonNull(job, "job");
    Objects.requireNonNull(change, "change");
  }

  /** Replaces the job's intent (overrides included). */
  public static RescheduleRequest scale(String job, JobIntent intent) {
    return new RescheduleRequest(job, new Command.Change.SetIntent(intent), false);
  }

  /** Sets the whole job's intent, keeping fragment overrides. */
  public static RescheduleRequest scaleJob(String job, Intent intent, boolean dryRun) {
    return new RescheduleRequest(job, new Command.Change.ScaleJob(intent), dryRun);
  }

  /** Sets the override of one ensemble root fragment. */
  public static RescheduleRequest scaleFragment(String job, int fragmentId, Intent intent, boolean dryRun) {
    return new RescheduleRequest(job, new Command.Change.ScaleFragment(fragmentId, intent), dryRun);
  }

  /** Hands the job to the autoscaler ({@code spec}) or takes it back (null). */
  public static RescheduleRequest autoscale(String job, dev.tide.meta.scale.AutoscaleSpec spec) {
    return new RescheduleRequest(job, new Command.Change.SetAutoscale(spec), false);
  }

  public static RescheduleRequest plan(String job, ReschedulePlan plan, boolean dryRun) {
    return new RescheduleRequest(job, new Command.Change.ApplyPlan(plan), dryRun);
  }
}
