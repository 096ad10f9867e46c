package dev.tide.optimizer.keeper;

import dev.tide.optimizer.provider.LaunchSpec;
import dev.tide.optimizer.provider.ProviderException;
import dev.tide.optimizer.provider.ResourceProvider;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;

/**
 * A provider that records requests and releases and launches nothing: the test decides whether and when a
 * requested instance registers. Requests or releases fail while {@link #failRequests} / {@link #failReleases} is set.
 */
final class FakeProvider implements ResourceProvider {
  final TreeMap<String, LaunchSpec> running = new TreeMap<>();
  final List<String> requested = new ArrayList<>();
  final List<String> released = new ArrayList<>();
  boolean failRequests;
  boolean failReleases;

  @Override
  public String name() {
    return "in-process";
  }

  @Override
  public void request(LaunchSpec spec) {
    if (failRequests) {
      throw new ProviderException("quota exceeded for " + spec.resourceId());
    }
    requested.add(spec.resourceId());
    running.put(spec.resourceId(), spec);
  }

  @Override
  public void release(String resourceId) {
    if (failReleases) {
      throw new ProviderException("API unavailable releasing " + resourceId);
    }
    released.add(resourceId);
    running.remove(resourceId);
  }

  @Override
  public List<LaunchSpec> list() {
    return List.copyOf(running.values());
  }
}
