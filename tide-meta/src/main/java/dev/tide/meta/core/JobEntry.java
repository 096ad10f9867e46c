package dev.tide.meta.core;

import dev.tide.meta.scale.JobIntent;
import dev.tide.meta.schedule.JobLayout;
import dev.tide.proto.plan.JobDefinition;
import java.util.HashSet;
import java.util.Set;

/**
 * One job in the catalog.
 *
 * <p>Phases: {@code CREATING} (its actors are being built; not visible to other requests) →
 * {@code RUNNING} ⇄ {@code RESCHEDULING} (a {@link RescheduleOp} owns it until its barrier commits)
 * → {@code DROPPING} (its Stop barrier is queued; it is deleted when the barrier is injected).
 *
 * <p>Thread-safety: confined to the core.
 */
final class JobEntry {
  enum Phase { CREATING, RUNNING, RESCHEDULING, DROPPING }

  final JobDefinition def;
  /** The layout its actors run: the reschedule's target from the barrier that carries it on. */
  JobLayout layout;
  JobIntent intent;
  /** Paused in the catalog (what a request last asked; durable). */
  boolean paused;
  /**
   * Paused as the barriers injected so far leave the sources (a Pause or Resume may still wait in
   * the queue): what an Update barrier tells the actors it adds.
   */
  boolean pausedInBarriers;
  Phase phase;
  /** The membership generation this job was last reconciled to its intent at; -1: never. */
  long reconciledGeneration = -1;
  /** While CREATING: the request to answer and the builds still outstanding. */
  long createRequest = -1;
  final Set<Long> pendingBuilds = new HashSet<>();

  JobEntry(JobDefinition def, JobLayout layout, JobIntent intent, boolean paused, Phase phase) {
    this.def = def;
    this.layout = layout;
    this.intent = intent;
    this.paused = paused;
    this.pausedInBarriers = paused;
    this.phase = phase;
  }

  int id() {
    return def.getJobId();
  }

  String name() {
    return def.getName();
  }

  /** Visible to requests other than create (which must see every name). */
  boolean visible() {
    return phase != Phase.CREATING;
  }
}
