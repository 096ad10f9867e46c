package dev.tide.optimizer.keeper;

import dev.tide.optimizer.dra.InstanceView;
import dev.tide.optimizer.group.TableLoad;
import dev.tide.optimizer.group.TableStatus;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/** An optimizing workload set by hand: tables and instances per group; every change fires the listeners. */
final class FakeLoadSource implements GroupLoadSource {
  private final Map<String, List<TableLoad>> tables = new HashMap<>();
  private final Map<String, TreeMap<String, InstanceView>> instances = new HashMap<>();
  final List<String> drained = new ArrayList<>();
  /** Whether a drained instance gets one task in flight as its drain starts (a parked poll). */
  boolean taskOnDrain;
  private final List<Runnable> listeners = new ArrayList<>();

  /** One table of {@code group} with {@code planned} PLANNED tasks and {@code busy} occupied threads (quota 1.0). */
  void load(String group, int planned, int busy) {
    tables.put(group, List.of(new TableLoad("t", planned > 0 || busy > 0 ? TableStatus.OPTIMIZING : TableStatus.IDLE, 1.0, planned,
        busy)));
    fire();
  }

  /** Like {@link #load} but without telling the listeners: an event the keeper missed. */
  void loadSilently(String group, int planned, int busy) {
    tables.put(group, List.of(new TableLoad("t", planned > 0 || busy > 0 ? TableStatus.OPTIMIZING : TableStatus.IDLE, 1.0, planned,
        busy)));
  }

  void pendingTables(String group, int n) {
    List<TableLoad> l = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      l.add(new TableLoad("p" + i, TableStatus.PENDING, 1.0, 0, 0));
    }
    tables.put(group, l);
    fire();
  }

  void register(String group, InstanceView i) {
    instances.computeIfAbsent(group, g -> new TreeMap<>()).put(i.instanceId(), i);
    fire();
  }

  void unregister(String group, String instanceId) {
    instances.getOrDefault(group, new TreeMap<>()).remove(instanceId);
    fire();
  }

  void clear(String group) {
    tables.remove(group);
    instances.remove(group);
  }

  void fire() {
    listeners.forEach(Runnable::run);
  }

  @Override
  public List<TableLoad> tables(String group) {
    return tables.getOrDefault(group, List.of());
  }

  @Override
  public List<InstanceView> instances(String group) {
    return List.copyOf(instances.getOrDefault(group, new TreeMap<>()).values());
  }

  @Override
  public void drain(String group, String instanceId) {
    drained.add(instanceId);
    InstanceView i = instances.getOrDefault(group, new TreeMap<>()).get(instanceId);
    if (taskOnDrain && i != null) {
      instances.get(group).put(instanceId, new InstanceView(instanceId, i.threads(), 1, i.resourceId(), i.lastTaskMs(), i.leaving()));
    }
  }

  @Override
  public void addListener(Runnable listener) {
    listeners.add(listener);
  }
}
