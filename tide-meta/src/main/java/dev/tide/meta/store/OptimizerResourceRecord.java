package dev.tide.meta.store;

import java.util.Objects;

/**
 * A resource (optimizer instance) the scale keeper requested for a group and has not released.
 *
 * @param resourceId the provider resource id, the instance registers with it
 * @param group the group's name
 * @param threads threads of the instance
 * @param requestedAtMs when it was requested (the boot deadline runs from it)
 */
public record OptimizerResourceRecord(String resourceId, String group, int threads, long requestedAtMs) {
  public OptimizerResourceRecord {
    Objects.requireNonNull(resourceId, "resourceId");
    Objects.requireNonNull(group, "group");
  }
}
