/**
 * The meta role. Package map:
 *
 * <ul>
 *   <li>{@code dev.tide.meta}: the driver {@link dev.tide.meta.Meta} (thread, clock, meta store,
 *       channels to compute nodes; runs the core and does what its effects say), the gRPC adapters,
 *       options, and the request and result values people and policies use
 *       ({@link dev.tide.meta.RescheduleRequest}, {@link dev.tide.meta.ClusterSnapshot}).
 *   <li>{@code core}: the control plane as a steppable core without I/O
 *       ({@link dev.tide.meta.core.MetaCore}): events and time in, effects and the next deadline out.
 *       Its state classes: {@code Membership} (workers and their drain/loss lifecycle),
 *       {@code JobCatalog}/{@code JobEntry} (jobs and their phases), {@code BarrierPipeline} (queued
 *       mutations, epochs, barriers in flight), {@code RescheduleOp} (one reschedule from resolution
 *       to commit), {@code Recovery} (attempts and their stages), {@code IdRanges} (durable ids).
 *   <li>{@code barrier}: the epoch bookkeeping (which barriers may commit, in order).
 *   <li>{@code schedule} and {@code scale}: pure planners — initial placement, re-placement off lost
 *       workers, intents, minimal-movement rebalancing, plans and layout diffs.
 *   <li>{@code store}: the durable catalog (SQLite, PostgreSQL).
 *   <li>{@code admin}, {@code group}, {@code optimize}: the admin API ({@code tide ctl}), optimizer
 *       groups and the compaction workload's service.
 * </ul>
 *
 * <p>Barriers come every {@code barrier.interval}, and sooner on demand: when a job is created,
 * when a reschedule is queued, and when a source's bounded input ended. A reschedule is resolved
 * inside the core against the job as it is then, builds the actors it adds, and rides one barrier
 * with an Update mutation; it is answered once that barrier commits, and no second reschedule of the
 * job runs meanwhile. After a crash at any point, recovery rebuilds the catalog's layout from
 * committed state: every layout reads the same shared state, so either the old or the new one is
 * consistent. People ({@code tide ctl}), the autoscaler ({@code dev.tide.meta.autoscale}) and the
 * membership reconciliation submit the same typed reschedule changes.
 */
package dev.tide.meta;
