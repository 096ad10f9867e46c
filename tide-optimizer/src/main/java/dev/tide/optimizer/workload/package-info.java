/**
 * The optimizing workload: compaction of state-store tables (spec {@code dra.md} 1–5).
 *
 * <p>{@link dev.tide.optimizer.workload.OptimizingQueue} is the deterministic core: per-table status
 * (IDLE → PENDING → PLANNING → OPTIMIZING → COMMITTING → IDLE), tasks ({@link
 * dev.tide.optimizer.workload.TaskState}), registered optimizer instances, quota at poll, planning
 * serialized per group, expiry and ack-timeout reclaim; every method takes {@code now} and does no
 * I/O. {@link dev.tide.optimizer.workload.CompactionPlanner} is the pure trigger and planner: a table
 * is PENDING when its L0 reaches {@code optimizer.trigger.l0-files} SSTs or {@code
 * optimizer.trigger.l0-bytes}, and its compaction rewrites all its L0 and L1 SSTs into L1, split into
 * vnode ranges. This relies on checkpoints writing one table per SST (the SST uploader cuts files at
 * table boundaries), so a per-table compaction removes whole files and never overlaps another table.
 * {@link dev.tide.optimizer.workload.ObsoleteSsts} holds the rule for deleting SSTs a compaction
 * dropped.
 *
 * <p>How a table maps to the keeper's {@link dev.tide.optimizer.group.TableLoad}: name = the table id
 * in decimal, status = its status, quota = its {@code self-optimizing.quota}, planned = its tasks in
 * PLANNED, occupied = its tasks in SCHEDULED or ACKED. An instance's in-flight count is its tasks in
 * SCHEDULED or ACKED.
 */
package dev.tide.optimizer.workload;
