package dev.tide.optimizer.dra;

/**
 * Remove a draining instance: release {@code resourceId} through the provider (the instance
 * unregisters as it stops, or expires). The outcome goes into the next snapshot: a confirmed release
 * leaves the drain waiting for the instance to leave; a failed one keeps the drain, and the removal is
 * decided again one {@code sustained-backlog-timeout} later.
 *
 * @param forced removed at drain-timeout with tasks still in flight (they are reclaimed by expiry)
 * @param attempt 1 for the first removal of this drain, then 2, 3, … on retries
 */
public record Removal(String instanceId, String resourceId, boolean forced, int attempt, String reason) {}
