/**
 * The meta role: one driver thread ({@link dev.tide.meta.Meta}) owns the catalog, membership, the
 * barrier pipeline ({@link dev.tide.meta.barrier.BarrierCoordinator}) and the committed state-store
 * version. Decisions are pure functions in {@code schedule} (initial placement) and {@code scale}
 * (reschedule planning: intents, minimal-movement rebalancing, layout diffs); the driver realizes
 * them through the stream service of each compute node.
 *
 * <p>Barriers come every {@code barrier.interval}, and sooner on demand: when a job is created
 * (its sources emit nothing before their first barrier), when a reschedule is queued, and when a
 * compute node reports that a source actor's bounded input ended (only a barrier commits its final
 * offsets). An early barrier restarts the interval; the in-flight limit still applies.
 *
 * <p>A reschedule builds the actors it adds, then injects one barrier with an Update mutation; the
 * job's layout becomes the target at injection and no second reschedule of the job is accepted
 * until that barrier's previous epoch commits. After a crash at any point, recovery rebuilds the
 * catalog's layout from committed state: every layout reads the same shared state, so either the old
 * or the new one is consistent. People ({@code tide ctl}) and {@link dev.tide.meta.ScalingPolicy}
 * implementations submit the same {@link dev.tide.meta.RescheduleRequest}s.
 */
package dev.tide.meta;
