package dev.tide.optimizer.keeper;

import java.util.Objects;

/**
 * A provider resource the keeper requested for a group, persisted once the provider accepted the
 * request and deleted once it is released: what survives a meta restart of the boot-window
 * accounting, and what a group's deletion releases.
 */
public record ResourceRecord(String resourceId, String group, int threads, long requestedAtMs) {
  public ResourceRecord {
    Objects.requireNonNull(resourceId, "resourceId");
    Objects.requireNonNull(group, "group");
    if (threads < 1) {
      throw new IllegalArgumentException("resource " + resourceId + " of group " + group + ": threads must be ≥ 1, got " + threads);
    }
  }
}
