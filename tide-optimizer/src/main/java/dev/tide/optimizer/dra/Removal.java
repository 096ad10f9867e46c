package dev.tide.optimizer.dra;

/**
 * Remove a draining instance: release {@code resourceId} through the provider, then unregister. A
 * release failure leaves the instance registered, so the next round decides the removal again.
 *
 * @param forced removed at drain-timeout with tasks still in flight (they are reclaimed by expiry)
 * @param attempt 1 for the first removal of this drain, then 2, 3, … on retries
 */
public record Removal(String instanceId, String resourceId, boolean forced, int attempt, String reason) {}
