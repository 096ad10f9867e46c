package dev.tide.optimizer.keeper;

import dev.tide.optimizer.group.GroupDefinition;
import java.util.List;

/**
 * Where optimizer groups and their resource records are kept (meta's store). Each method is one
 * transaction; a failure changes nothing and is an unchecked exception.
 */
public interface GroupStore {
  /** Every stored group, sorted by name. */
  List<GroupDefinition> groups();

  /** Inserts a group or replaces the one with the same name. */
  void putGroup(GroupDefinition group);

  /** Removes a group together with its resource records; returns whether it was stored. */
  boolean deleteGroup(String name);

  /** Every resource record, sorted by resource id. */
  List<ResourceRecord> resources();

  /** Inserts a resource record or replaces the one with the same id. */
  void putResource(ResourceRecord resource);

  /** Removes a resource record; returns whether it was stored. */
  boolean deleteResource(String resourceId);

  /** Keeps one of {@code group}'s keeper actions (a store keeps the latest few); by default nothing is kept. */
  default void putAction(String group, KeeperAction action) {}

  /** The kept actions of {@code group}, oldest first. */
  default List<KeeperAction> actions(String group) {
    return List.of();
  }
}
