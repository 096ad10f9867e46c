package dev.tide.optimizer.keeper;

import dev.tide.optimizer.dra.GroupMetrics;
import dev.tide.optimizer.group.GroupConfig;
import dev.tide.optimizer.group.GroupDefinition;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * A group as the admin API shows it.
 *
 * @param definition name, provider and properties as stored
 * @param config the configuration in effect (the all-defaults one, DRA disabled, when the stored one is invalid)
 * @param draEnabled whether the scale keeper evaluates the group (false when disabled or invalid)
 * @param configInvalid why the stored configuration is invalid, if it is (DRA is then treated as disabled)
 * @param metrics the group's metrics as of {@code atMs}
 * @param lastDecision the summary of the keeper's last round, empty before the first
 * @param recentActions the keeper's latest actions on the pool (scale-ups, drains, removals), oldest first
 * @param nextEvaluationMs when the keeper evaluates next without an event (wall time), if scheduled
 * @param resources resource records of the group, sorted by id
 * @param atMs when the view was taken
 */
public record GroupView(GroupDefinition definition, GroupConfig config, boolean draEnabled, Optional<String> configInvalid, GroupMetrics metrics,
    String lastDecision, List<KeeperAction> recentActions, OptionalLong nextEvaluationMs, List<ResourceRecord> resources, long atMs) {
  public GroupView {
    recentActions = List.copyOf(recentActions);
    resources = List.copyOf(resources);
  }

  public String name() {
    return definition.name();
  }
}
