package dev.tide.meta.group;

import dev.tide.meta.store.MetaStore;
import dev.tide.meta.store.OptimizerGroupRecord;
import dev.tide.meta.store.OptimizerResourceRecord;
import dev.tide.optimizer.group.GroupDefinition;
import dev.tide.optimizer.keeper.GroupStore;
import dev.tide.optimizer.keeper.KeeperAction;
import dev.tide.optimizer.keeper.ResourceRecord;
import java.util.List;
import java.util.Objects;

/** The scale keeper's {@link GroupStore} in meta's {@link MetaStore}: properties as {@link PropertiesText}. */
public final class MetaGroupStore implements GroupStore {
  /** Actions kept per group. */
  public static final int KEPT_ACTIONS = 16;
  private final MetaStore store;

  public MetaGroupStore(MetaStore store) {
    this.store = Objects.requireNonNull(store, "store");
  }

  @Override
  public List<GroupDefinition> groups() {
    return store.optimizerGroups().stream()
        .map(g -> new GroupDefinition(g.name(), g.provider(), PropertiesText.parse(g.properties())))
        .toList();
  }

  @Override
  public void putGroup(GroupDefinition group) {
    store.putOptimizerGroup(new OptimizerGroupRecord(group.name(), group.provider(), PropertiesText.render(group.properties())));
  }

  @Override
  public boolean deleteGroup(String name) {
    return store.deleteOptimizerGroup(name);
  }

  @Override
  public List<ResourceRecord> resources() {
    return store.optimizerResources().stream()
        .map(r -> new ResourceRecord(r.resourceId(), r.group(), r.threads(), r.requestedAtMs()))
        .toList();
  }

  @Override
  public void putResource(ResourceRecord r) {
    store.putOptimizerResource(new OptimizerResourceRecord(r.resourceId(), r.group(), r.threads(), r.requestedAtMs()));
  }

  @Override
  public boolean deleteResource(String resourceId) {
    return store.deleteOptimizerResource(resourceId);
  }

  /** Actions are kept as decisions of scope {@code group:NAME}, the latest {@value #KEPT_ACTIONS}. */
  @Override
  public void putAction(String group, KeeperAction action) {
    store.appendDecision("group:" + group, action.atMs(), action.reason(), KEPT_ACTIONS);
  }

  @Override
  public List<KeeperAction> actions(String group) {
    return store.decisions("group:" + group).stream().map(d -> new KeeperAction(d.atMs(), d.decision())).toList();
  }
}
