package dev.tide.meta.core;

import dev.tide.meta.scale.Intent;
import dev.tide.meta.scale.JobIntent;
import dev.tide.meta.scale.ReschedulePlan;
import dev.tide.proto.plan.JobDefinition;
import dev.tide.proto.store.SstInfo;
import java.util.List;
import java.util.Objects;

/**
 * A request to meta from a person ({@code tide ctl}), a policy, a compute node or a service. Each is
 * answered by exactly one {@link Effect.Reply} carrying the request's id, with the value named below
 * or an exception ({@link IllegalArgumentException}: bad input; {@link IllegalStateException}: not
 * possible now). A refused request changes nothing.
 */
public sealed interface Command {
  /** A compute node joins, reachable at {@code address}. Reply: {@link Registered}. */
  /** @param resourceId the compute pool's resource the node was launched for, empty when started by hand */
  record RegisterWorker(String address, int slots, String resourceId) implements Command {
    public RegisterWorker(String address, int slots) {
      this(address, slots, "");
    }
  }

  /** What a registering node learns: its worker id and the committed version to start from. */
  record Registered(int workerId, dev.tide.proto.store.StoreVersion version) {}

  /**
   * A node's sign of life, as received at {@code atMs} (the driver stamps it when the RPC arrives, so
   * a busy driver does not make a live node look silent). Reply: {@link Verdict}.
   */
  record Heartbeat(int workerId, int actors, long minReaderVersion, long atMs) implements Command {}

  /** What meta tells a node that sent a heartbeat. */
  enum Verdict {
    /** Known and alive. */
    OK,
    /** Not known (declared lost, or never registered with this catalog): stop every actor and register again. */
    REGISTER_AGAIN,
    /** Drained: it hosts nothing and must leave the cluster (stop; a process exits 0). It never registers again by itself. */
    LEAVE
  }

  /** Fresh ids for a job to compile with. Reply: {@link JobIds}. */
  record AllocateJobIds() implements Command {}

  /** A job id and the first of its {@link MetaCore#TABLES_PER_JOB} state-table ids. */
  record JobIds(int jobId, int tableIdBase) {}

  /** Places, builds and starts a compiled job. Reply: null once its actors are built. */
  record CreateJob(JobDefinition definition) implements Command {
    public CreateJob {
      Objects.requireNonNull(definition, "definition");
    }
  }

  /** Stops a job's actors with the next barrier and removes it. Reply: null once queued. */
  record DropJob(String job) implements Command {}

  /** Pauses or resumes a job's sources at the next barrier. Reply: {@link Boolean}, whether it changed. */
  record SetPaused(String job, boolean paused) implements Command {}

  /**
   * A change of a running job's layout, resolved against the job's state inside the core at the
   * moment it runs (never against an earlier snapshot). Reply: {@link dev.tide.meta.RescheduleResult}
   * once the new layout's barrier committed (or at once for a dry run or a change that moves nothing).
   */
  record Reschedule(String job, Change change, boolean dryRun) implements Command {
    public Reschedule {
      Objects.requireNonNull(change, "change");
    }
  }

  /** What a reschedule changes. */
  sealed interface Change {
    /** The whole job's intent becomes {@code intent}; fragment overrides stay. */
    record ScaleJob(Intent intent) implements Change {}

    /** The override of one ensemble root fragment becomes {@code intent}. */
    record ScaleFragment(int fragmentId, Intent intent) implements Change {}

    /** The job's intent is replaced (a policy's decision). */
    record SetIntent(JobIntent intent) implements Change {}

    /** Hands the job to the autoscaler with {@code spec}, or takes it back (null); the layout stays. */
    record SetAutoscale(dev.tide.meta.scale.AutoscaleSpec spec) implements Change {}

    /**
     * Explicit per-worker actor changes ({@code tide ctl reschedule --plan}). A fragment whose actor
     * count it changes gets that count as its fixed override in the intent, so the membership
     * reconciliation keeps it.
     */
    record ApplyPlan(ReschedulePlan plan) implements Change {}
  }

  /** Marks a worker draining: its actors migrate off, then it is told to leave. Reply: null. */
  record DrainWorker(int workerId) implements Command {}

  /** A consistent view of the catalog and membership. Reply: {@link dev.tide.meta.ClusterSnapshot}. */
  record Snapshot() implements Command {}

  /**
   * Commits a compaction result: removes {@code removeSstIds}, adds {@code outputs} to L1. Reply: the
   * new {@link dev.tide.proto.store.StoreVersion}; {@link IllegalArgumentException} when it does not
   * apply to the current version.
   */
  record CommitCompaction(List<Long> removeSstIds, List<SstInfo> outputs) implements Command {}
}
