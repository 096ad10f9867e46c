package dev.tide.cli.playground;

import java.nio.file.Path;
import java.time.Duration;

/**
 * What a playground run looks like, validated by the command before the run starts.
 *
 * @param duration how long the playground runs after its first step
 * @param ratePerQuery events per second of each query's Nexmark source (all tables of the stream)
 * @param nodes compute nodes started at the beginning
 * @param slotsPerNode actor slots of each compute node
 * @param barrierInterval time between two checkpoint barriers
 * @param dataDir where the object store lives
 */
public record PlaygroundSettings(Duration duration, long ratePerQuery, int nodes, int slotsPerNode,
    Duration barrierInterval, Path dataDir) {}
