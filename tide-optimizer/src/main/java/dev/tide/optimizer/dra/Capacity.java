package dev.tide.optimizer.dra;

import java.util.Collection;
import java.util.Set;

/**
 * A group's thread capacity as the keeper counts it (spec 11): effective = registered − draining +
 * requested-but-not-registered. Draining capacity counts as gone on both sides of the demand
 * computation: its threads leave {@link #effectiveThreads()} and its in-flight tasks leave
 * {@link #busyThreads(int)}.
 */
public record Capacity(int activeInstances, int activeThreads, int drainingInstances, int drainingThreads,
    int drainingInFlight, int requestedThreads) {

  /**
   * @param instances registered instances
   * @param draining ids of draining instances
   * @param pending requests not yet registered (already pruned of registered, failed and expired ones)
   */
  public static Capacity of(Collection<InstanceView> instances, Set<String> draining, Collection<PendingRequest> pending) {
    int activeInstances = 0;
    int active = 0;
    int drainingInstances = 0;
    int drainingThreads = 0;
    int drainingInFlight = 0;
    for (InstanceView i : instances) {
      if (draining.contains(i.instanceId())) {
        drainingInstances++;
        drainingThreads += i.threads();
        drainingInFlight += i.inFlightTasks();
      } else {
        activeInstances++;
        active += i.threads();
      }
    }
    int requested = pending.stream().mapToInt(PendingRequest::threads).sum();
    return new Capacity(activeInstances, active, drainingInstances, drainingThreads, drainingInFlight, requested);
  }

  /** Registered − draining + requested threads. */
  public int effectiveThreads() {
    return activeThreads + requestedThreads;
  }

  /** The group's busy threads without those of draining instances. */
  public int busyThreads(int groupBusyThreads) {
    return Math.max(0, groupBusyThreads - drainingInFlight);
  }
}
