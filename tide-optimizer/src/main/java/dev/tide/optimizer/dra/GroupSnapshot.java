package dev.tide.optimizer.dra;

import dev.tide.optimizer.group.TableLoad;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * What the keeper collected about one group at the start of a round (spec 10), plus the outcomes of
 * the previous round's provider calls (spec 11) and, on the rounds that list it, what the provider
 * holds for the group (reconciliation). Times are the keeper's monotonic milliseconds.
 *
 * @param group group name
 * @param busyThreads tasks SCHEDULED or ACKED in the group (each holds a thread)
 * @param plannedTasks all PLANNED tasks
 * @param serviceablePlannedTasks PLANNED tasks more threads could serve ({@link PoolLoad#serviceable})
 * @param tables tables per status (PENDING ones are the future-demand signal)
 * @param instances registered instances, sorted by id
 * @param outcomes outcome per resource id of the provider calls realized since the last round
 * @param providerHeld the group's resources the provider holds (resource id → threads), when it was listed for this round
 */
public record GroupSnapshot(
    String group,
    int busyThreads,
    int plannedTasks,
    int serviceablePlannedTasks,
    TableCounts tables,
    List<InstanceView> instances,
    Map<String, ProviderOutcome> outcomes,
    Optional<Map<String, Integer>> providerHeld) {

  public GroupSnapshot {
    Objects.requireNonNull(group, "group");
    Objects.requireNonNull(tables, "tables");
    if (busyThreads < 0 || plannedTasks < 0 || serviceablePlannedTasks < 0 || serviceablePlannedTasks > plannedTasks) {
      throw new IllegalArgumentException("group " + group + ": need busy ≥ 0 and 0 ≤ serviceable ≤ planned, got busy "
          + busyThreads + ", planned " + plannedTasks + ", serviceable " + serviceablePlannedTasks);
    }
    instances = instances.stream().sorted(Comparator.comparing(InstanceView::instanceId)).toList();
    Set<String> ids = new HashSet<>();
    for (InstanceView i : instances) {
      if (!ids.add(i.instanceId())) {
        throw new IllegalArgumentException("group " + group + ": instance " + i.instanceId() + " listed twice");
      }
    }
    outcomes = Collections.unmodifiableSortedMap(new TreeMap<>(outcomes));
    providerHeld = providerHeld.map(m -> Collections.unmodifiableSortedMap(new TreeMap<>(m)));
  }

  /** A snapshot built from per-table loads: busy, planned and serviceable are summed from them. */
  public static GroupSnapshot fromTables(String group, List<TableLoad> tables, List<InstanceView> instances,
      Map<String, ProviderOutcome> outcomes, Optional<Map<String, Integer>> providerHeld) {
    return of(group, PoolLoad.ofTables(tables), instances, outcomes, providerHeld);
  }

  /** A snapshot of a pool whose load is {@code load}. */
  public static GroupSnapshot of(String group, PoolLoad load, List<InstanceView> instances, Map<String, ProviderOutcome> outcomes,
      Optional<Map<String, Integer>> providerHeld) {
    return new GroupSnapshot(group, load.busy(), load.planned(), load.serviceable(), load.tables(), instances, outcomes,
        providerHeld);
  }

  /** The outcome of the last provider call for {@code resourceId}, if one was made since the last round. */
  public Optional<ProviderOutcome> outcome(String resourceId) {
    return Optional.ofNullable(outcomes.get(resourceId));
  }

  /** Registered instances by id. */
  public SortedMap<String, InstanceView> instancesById() {
    SortedMap<String, InstanceView> m = new TreeMap<>();
    for (InstanceView i : instances) {
      m.put(i.instanceId(), i);
    }
    return m;
  }

  public int pendingTables() {
    return tables.pending();
  }

  public int registeredThreads() {
    return instances.stream().mapToInt(InstanceView::threads).sum();
  }
}
