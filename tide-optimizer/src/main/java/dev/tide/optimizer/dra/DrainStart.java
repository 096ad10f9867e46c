package dev.tide.optimizer.dra;

/** Start draining {@code instanceId}: from now on it must get no new task. */
public record DrainStart(String instanceId, String resourceId, long idleForMs, String reason) {}
