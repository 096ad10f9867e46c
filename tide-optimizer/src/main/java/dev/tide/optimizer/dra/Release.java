package dev.tide.optimizer.dra;

/**
 * Release {@code resourceId} through the provider (idempotent) and delete its record: a request that
 * did not register by its boot deadline. The outcome ({@link ProviderOutcome#RELEASED} or
 * {@link ProviderOutcome#RELEASE_FAILED}) goes into the next snapshot.
 *
 * @param attempt 1 for the first release of the resource, then 2, 3, … on retries
 */
public record Release(String resourceId, int attempt, String reason) {}
