package dev.tide.meta.store;

import java.util.Objects;

/**
 * A resource (a compute node) the compute pool's keeper requested and has not released.
 *
 * @param resourceId the provider resource id; the node registers with it
 * @param pool the pool's name
 * @param units slots of the node
 * @param requestedAtMs when it was requested (the boot deadline runs from it)
 */
public record PoolResourceRecord(String resourceId, String pool, int units, long requestedAtMs) {
  public PoolResourceRecord {
    Objects.requireNonNull(resourceId, "resourceId");
    Objects.requireNonNull(pool, "pool");
  }
}
