package dev.tide.bench;

import dev.tide.common.hash.RowFingerprint;

/**
 * What one engine run of a query measured, from the job's submission until the engine reported the
 * bounded job done.
 *
 * @param wallNanos submission until done
 * @param cpuNanos process CPU time over the same span (all threads, GC and JIT included; the
 *     cluster's start-up before submission is not in it)
 * @param result fingerprint of the query's final result
 * @param timeline rows produced by the job's sources over the same span
 */
public record Timed(long wallNanos, long cpuNanos, RowFingerprint result, Progress.Timeline timeline) {}
