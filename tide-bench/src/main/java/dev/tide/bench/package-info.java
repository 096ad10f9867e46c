/**
 * Tide side by side with Apache Flink 2.3.0, and JMH kernels; built only under the Maven profile
 * {@code bench} and started by {@code ./tide bench compare|rescale-compare|jmh}.
 *
 * <ul>
 *   <li>{@link dev.tide.bench.CompareCommand}: Nexmark throughput. Each measured run is one engine and
 *       one query in a JVM of its own ({@link dev.tide.bench.EngineRun}), so process CPU time and peak
 *       resident memory belong to that run. Both engines read the same events: Flink's sources call the
 *       same {@link dev.tide.stream.nexmark.NexmarkGenerator} with the same seed, event-time rate and
 *       count. Both end in a sink that keeps no rows (Tide's digest sink, Flink's
 *       {@link dev.tide.bench.flink.FingerprintSink}). A figure is reported only when every run of
 *       both engines produced the same {@link dev.tide.common.hash.RowFingerprint} (the multiset of the
 *       final result rows).
 *   <li>{@link dev.tide.bench.RescaleCompareCommand}: rescale 2 → 4 of the job of
 *       {@link dev.tide.cli.bench.RescaleJob}; Tide reschedules online ({@link dev.tide.cli.bench.RescaleBench}),
 *       Flink stops with a savepoint and restores at the new parallelism
 *       ({@link dev.tide.bench.rescale.FlinkRescale}).
 *   <li>{@code dev.tide.bench.jmh}: micro-benchmarks of hot kernels.
 * </ul>
 *
 * <p>Comparable settings: the same parallelism, Tide's barrier interval equal to Flink's checkpoint
 * interval with exactly-once mode, Flink with object reuse and the heap state backend ({@code hashmap})
 * checkpointing to local files, restarts disabled (a failed run fails the benchmark).
 */
package dev.tide.bench;
