package dev.tide.meta;

/**
 * A snapshot of the barrier pipeline for progress displays.
 *
 * @param barrierLatencyMs injection to commit of the latest committed barrier
 */
public record MetaStats(long committedEpoch, long committedBarriers, long barrierLatencyMs, int inflightBarriers,
    int aliveWorkers, int jobs, long recoveries) {}
