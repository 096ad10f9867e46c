package dev.tide.meta.core;

import dev.tide.meta.RescheduleResult;
import dev.tide.meta.scale.JobIntent;
import dev.tide.meta.scale.LayoutDiff;
import dev.tide.meta.schedule.JobLayout;
import dev.tide.proto.stream.Mutation;
import java.util.HashSet;
import java.util.Set;

/**
 * One reschedule of one job, from the moment the core resolved it until its barrier's previous
 * epoch commits. Stages: {@code BUILDING} (the actors it adds are being built) → {@code QUEUED} (its
 * Update waits for the next barrier) → {@code INJECTED} (the barrier carrying it is in flight; the
 * job's layout is the target). A recovery aborts it before injection, or adopts its target after.
 *
 * <p>Thread-safety: confined to the core.
 */
final class RescheduleOp {
  enum Stage { BUILDING, QUEUED, INJECTED }

  /** The request to answer, or -1 for a reschedule meta started itself (membership reconciliation). */
  final long requestId;
  final JobEntry job;
  final JobLayout target;
  final JobIntent intent;
  final LayoutDiff diff;
  final int actorsBefore;
  final Mutation update;
  final Set<Long> pendingBuilds = new HashSet<>();
  Stage stage = Stage.BUILDING;
  /** The previous epoch of the barrier that carries it, once injected. */
  long prevEpoch;

  RescheduleOp(long requestId, JobEntry job, JobLayout target, JobIntent intent, LayoutDiff diff, Mutation update) {
    this.requestId = requestId;
    this.job = job;
    this.target = target;
    this.intent = intent;
    this.diff = diff;
    this.actorsBefore = job.layout.allActors().size();
    this.update = update;
  }

  RescheduleResult result(boolean applied) {
    return new RescheduleResult(diff, applied, actorsBefore, intent);
  }
}
