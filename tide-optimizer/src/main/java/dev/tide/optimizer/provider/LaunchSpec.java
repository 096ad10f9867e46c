package dev.tide.optimizer.provider;

import java.util.Collections;
import java.util.Map;
import java.util.Objects;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * One optimizer instance to launch: {@code threads} worker threads serving {@code group}, registering
 * with {@code resourceId} so that the scale keeper can match the registration to its request.
 *
 * @param properties the group's properties (provider settings such as {@code kubernetes.memory} among them)
 */
public record LaunchSpec(String group, String resourceId, int threads, SortedMap<String, String> properties) {
  public LaunchSpec {
    Objects.requireNonNull(group, "group");
    Objects.requireNonNull(resourceId, "resourceId");
    if (threads < 1) {
      throw new IllegalArgumentException("launch of " + resourceId + " for group " + group + ": threads must be ≥ 1, got " + threads);
    }
    properties = Collections.unmodifiableSortedMap(new TreeMap<>(properties));
  }

  public static LaunchSpec of(String group, String resourceId, int threads, Map<String, String> properties) {
    return new LaunchSpec(group, resourceId, threads, new TreeMap<>(properties));
  }
}
