package dev.tide.optimizer.dra;

import java.util.Collection;
import java.util.Map;

/**
 * A group's thread capacity as the keeper counts it (spec 11). Effective = registered − draining +
 * requested-but-not-registered. Draining capacity counts as gone on both sides of the demand
 * computation: its threads leave {@link #effectiveThreads()} and its in-flight tasks leave
 * {@link #busyThreads(int)}. The cap counts more: {@link #heldThreads()} is every thread the provider may
 * be running for the group, so that {@code max-parallelism} holds in practice, even for requests that
 * start after their boot deadline or drains whose release is not confirmed yet.
 */
public record Capacity(int activeInstances, int activeThreads, int drainingInstances, int drainingThreads,
    int drainingInFlight, int drainingUnreleasedThreads, int requestedThreads, int releasingThreads) {

  /**
   * @param instances registered instances
   * @param draining draining instances by id
   * @param pending requests not yet registered (already pruned of registered, failed and expired ones)
   * @param releasing resources being released that no registered instance stands for
   */
  public static Capacity of(Collection<InstanceView> instances, Map<String, Drain> draining, Collection<PendingRequest> pending,
      Collection<PendingRelease> releasing) {
    int activeInstances = 0;
    int active = 0;
    int drainingInstances = 0;
    int drainingThreads = 0;
    int drainingInFlight = 0;
    int drainingUnreleased = 0;
    for (InstanceView i : instances) {
      Drain d = draining.get(i.instanceId());
      if (d != null) {
        drainingInstances++;
        drainingThreads += i.threads();
        drainingInFlight += i.inFlightTasks();
        drainingUnreleased += d.released() ? 0 : i.threads();
      } else {
        activeInstances++;
        active += i.threads();
      }
    }
    int requested = pending.stream().mapToInt(PendingRequest::threads).sum();
    int releasingThreads = releasing.stream().mapToInt(PendingRelease::threads).sum();
    return new Capacity(activeInstances, active, drainingInstances, drainingThreads, drainingInFlight, drainingUnreleased,
        requested, releasingThreads);
  }

  /** Registered − draining + requested threads. */
  public int effectiveThreads() {
    return activeThreads + requestedThreads;
  }

  /** Threads counted against max-parallelism: active, draining and not yet released, requested, being released. */
  public int heldThreads() {
    return activeThreads + drainingUnreleasedThreads + requestedThreads + releasingThreads;
  }

  /** The group's busy threads without those of draining instances. */
  public int busyThreads(int groupBusyThreads) {
    return Math.max(0, groupBusyThreads - drainingInFlight);
  }
}
