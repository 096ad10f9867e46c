package dev.tide.optimizer.keeper;

import dev.tide.optimizer.group.GroupDefinition;
import java.util.List;
import java.util.TreeMap;

/** A {@link GroupStore} in maps; {@link #failResourceWrites} makes resource writes fail. */
final class InMemoryGroupStore implements GroupStore {
  final TreeMap<String, GroupDefinition> groups = new TreeMap<>();
  final TreeMap<String, ResourceRecord> resources = new TreeMap<>();
  boolean failResourceWrites;

  @Override
  public synchronized List<GroupDefinition> groups() {
    return List.copyOf(groups.values());
  }

  @Override
  public synchronized void putGroup(GroupDefinition group) {
    groups.put(group.name(), group);
  }

  @Override
  public synchronized boolean deleteGroup(String name) {
    resources.values().removeIf(r -> r.group().equals(name));
    return groups.remove(name) != null;
  }

  @Override
  public synchronized List<ResourceRecord> resources() {
    return List.copyOf(resources.values());
  }

  @Override
  public synchronized void putResource(ResourceRecord resource) {
    if (failResourceWrites) {
      throw new IllegalStateException("store unavailable");
    }
    resources.put(resource.resourceId(), resource);
  }

  @Override
  public synchronized boolean deleteResource(String resourceId) {
    if (failResourceWrites) {
      throw new IllegalStateException("store unavailable");
    }
    return resources.remove(resourceId) != null;
  }
}
