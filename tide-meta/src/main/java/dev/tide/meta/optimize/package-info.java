/**
 * The optimizing workload's home in meta: {@link dev.tide.meta.optimize.OptimizingService} (the shell
 * around the pure {@link dev.tide.optimizer.workload.OptimizingQueue}: planning, committing compaction
 * results through meta as state-store version changes, expiry, deletion of obsolete SSTs) and its
 * gRPC face {@link dev.tide.meta.optimize.OptimizerGrpcService} ({@code optimizer.proto}).
 *
 * <p>Garbage collection rule: an SST a compaction removed in version {@code V} is deleted once the
 * lowest version any reader may use is at least {@code V} — meta installs {@code V} on every live
 * compute node before the commit returns, and in-JVM readers report the versions their open scans pin
 * — plus {@code optimizer.sst-delete-grace}, because point reads do not pin.
 */
package dev.tide.meta.optimize;
