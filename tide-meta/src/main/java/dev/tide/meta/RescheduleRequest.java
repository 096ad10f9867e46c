package dev.tide.meta;

import dev.tide.meta.scale.JobIntent;
import dev.tide.meta.scale.ReschedulePlan;

/**
 * A request to change a running job's layout: either a new intent (scale) or an explicit plan
 * (reschedule). People (ctl) and policies (autoscaler, membership) submit the same requests.
 *
 * @param intent the job's new intent, or null to keep it
 * @param plan explicit per-worker actor changes, or null
 * @param dryRun compute and return the diff without applying it
 */
public record RescheduleRequest(String job, JobIntent intent, ReschedulePlan plan, boolean dryRun) {
  public RescheduleRequest {
    if ((intent == null) == (plan == null)) {
      throw new IllegalArgumentException("a reschedule request needs exactly one of an intent or a plan");
    }
  }

  public static RescheduleRequest scale(String job, JobIntent intent) {
    return new RescheduleRequest(job, intent, null, false);
  }

  public static RescheduleRequest plan(String job, ReschedulePlan plan, boolean dryRun) {
    return new RescheduleRequest(job, null, plan, dryRun);
  }
}
