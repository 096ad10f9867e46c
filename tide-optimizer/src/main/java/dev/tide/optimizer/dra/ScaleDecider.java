package dev.tide.optimizer.dra;

import dev.tide.common.config.Durations;
import dev.tide.optimizer.group.GroupConfig;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * The decision core of the scale keeper (dynamic resource allocation of an optimizer group): a pure
 * function of the group's snapshot, the keeper's state, the group's configuration and {@code now}. No
 * I/O, no clock reads; the same inputs give the same decision.
 *
 * <p>One round, in order (spec 9): boot-window accounting (outcomes of the last requests) → drain
 * progress → idle observation → planning-bound check → scale-up decision (floor, immediate demand,
 * future demand; timing gates; cap) → scale-down, only if this round saw no demand at all.
 *
 * <p>Demand, for the backlog timer, is immediate demand ({@code busy + serviceable > effective}) or
 * future demand (PENDING tables while {@code busy ≥ effective}). A round whose demand is covered only
 * by requested instances still booting holds the timer (neither adds nor resets it): the demand has not
 * drained, it is being served; so a booting probe does not restart the cold-start gate, and a request
 * pruned at its boot deadline is replaced as soon as the spacing allows. "No demand at all", for
 * scale-down, additionally requires no PENDING table and no floor deficit.
 */
public final class ScaleDecider {
  private ScaleDecider() {}

  /**
   * Decides one round for a DRA-enabled group.
   *
   * @throws IllegalArgumentException if DRA is disabled in {@code config} (the floor-only keeper owns the group)
   */
  public static ScaleDecision decide(GroupSnapshot snapshot, KeeperState state, GroupConfig config, long nowMs) {
    if (!config.draEnabled()) {
      throw new IllegalArgumentException("scale round of group " + snapshot.group()
          + " refused: dynamic allocation is disabled; the floor-only keeper owns the group");
    }
    return new Round(snapshot, state, config, nowMs).run();
  }

  /** One evaluation; confined to the call of {@link #decide}. */
  private static final class Round {
    private final GroupSnapshot snap;
    private final KeeperState prev;
    private final GroupConfig cfg;
    private final long now;
    private final int k;
    private final int min;
    private final int max;
    private final List<String> notes = new ArrayList<>();
    private final List<Warning> warnings = new ArrayList<>();
    private final List<Removal> removals = new ArrayList<>();
    private long wakeMs = ScaleDecision.NO_DEADLINE;
    private String wakeReason = "no deadline: only an event can change the decision";

    Round(GroupSnapshot snap, KeeperState prev, GroupConfig cfg, long now) {
      this.snap = snap;
      this.prev = prev;
      this.cfg = cfg;
      this.now = now;
      this.k = cfg.executorParallelism();
      this.min = cfg.minParallelism();
      this.max = cfg.maxParallelism();
    }

    ScaleDecision run() {
      SortedMap<String, InstanceView> registered = snap.instancesById();

      // Boot window: drop registered, synchronously failed and expired requests.
      List<PendingRequest> pending = bootWindow(registered);

      // 1. Drain progress.
      SortedMap<String, Drain> draining = drainProgress(registered);

      // 2. Idle observation. Beyond spec 17's in-flight sampling, a task handed out or finished since
      // the last round counts too (Spark's idle clock restarts at every task end): short tasks that
      // fall between rounds must not make a working instance look idle.
      SortedMap<String, Long> lastBusy = new TreeMap<>();
      for (InstanceView i : registered.values()) {
        Long seen = prev.lastBusyMs().get(i.instanceId());
        lastBusy.put(i.instanceId(), i.inFlightTasks() > 0 || seen == null ? now : Math.max(seen, Math.min(now, i.lastTaskMs())));
      }

      Capacity cap = Capacity.of(registered.values(), draining.keySet(), pending);
      int effective = cap.effectiveThreads();
      int busy = cap.busyThreads(snap.busyThreads());
      int serviceable = snap.serviceablePlannedTasks();
      int pendingTables = snap.pendingTables();

      // 3. Planning-bound check.
      boolean planningBound = cap.activeThreads() > 0 && busy < cap.activeThreads() && pendingTables > 0
          && snap.plannedTasks() == 0;
      PlanningBound pb = planningBound(planningBound, busy, cap, pendingTables);

      // 4. Scale-up decision.
      long need = (long) busy + serviceable - effective;
      boolean floorDeficit = effective < min;
      boolean immediate = !planningBound && need > 0;
      boolean future = !planningBound && !immediate && pendingTables > 0 && busy >= effective;
      // Demand that only booting (requested, not registered) capacity covers: the timer is held, not reset.
      boolean covered = !planningBound && !immediate && !future && cap.requestedThreads() > 0
          && ((long) busy + serviceable > cap.activeThreads() || pendingTables > 0 && busy >= cap.activeThreads());
      int allowed = Math.max(0, max - effective) / k;

      Optional<BacklogTimer> backlog = Optional.empty();
      int ramp = 1;
      Optional<ScaleUp> up = Optional.empty();
      long seq = prev.requestSeq();
      if (floorDeficit) {
        int n = Math.min(ceilDiv(min - effective, k), allowed);
        if (n > 0) {
          up = Optional.of(new ScaleUp(ScaleUp.Kind.FLOOR, n, k, resourceIds(seq, n),
              "floor: effective " + effective + " < min-parallelism " + min + "; adding " + n + " instance" + plural(n)
                  + " of " + k + " thread" + plural(k) + " at once (cap " + max + ")"));
        } else {
          notes.add("floor deficit (effective " + effective + " < min-parallelism " + min
              + ") but max-parallelism " + max + " leaves no room for an instance of " + k + " threads");
        }
        if (prev.backlog().isPresent() || prev.ramp() != 1) {
          notes.add("floor deficit resets the backlog timer and the ramp");
        }
      } else if (immediate || future) {
        BacklogTimer t = prev.backlog().orElse(
            new BacklogTimer(now, plus(now, cfg.schedulerBacklogTimeout()), 0));
        String demand = immediate
            ? "need " + need + " thread" + plural(need) + " (busy " + busy + " + serviceable " + serviceable
                + " − effective " + effective + ")"
            : effective == 0
                ? "cold start: " + pendingTables + " PENDING table" + plural(pendingTables) + " and no thread to plan them"
                : "future demand: " + pendingTables + " PENDING table" + plural(pendingTables) + " while all " + effective
                    + " threads are busy";
        if (now < t.nextAddAtMs()) {
          boolean first = t.firstAdd();
          notes.add(demand + "; " + (first ? "backlog gate" : "sustained spacing") + " until +"
              + (t.nextAddAtMs() - now) + "ms (demand since " + (now - t.sinceMs()) + "ms)");
          backlog = Optional.of(t);
          ramp = prev.ramp();
        } else if (allowed == 0) {
          notes.add(demand + "; at the cap: effective " + effective + " leaves no room under max-parallelism " + max
              + " for an instance of " + k + " threads");
          backlog = Optional.of(t);
        } else {
          int n;
          String reason;
          if (immediate) {
            int want = (int) Math.min(Integer.MAX_VALUE, ceilDiv(need, k));
            n = Math.min(Math.min(want, prev.ramp()), allowed);
            // Spark ExecutorAllocationManager: double when the whole ramp step was used, else reset.
            ramp = n == prev.ramp() ? prev.ramp() * 2 : 1;
            reason = "scale-up " + n + " instance" + plural(n) + ": need " + need + " thread" + plural(need) + ", ramp "
                + prev.ramp() + ", cap " + allowed + " (busy " + busy + " + serviceable " + serviceable + " − effective "
                + effective + "; K " + k + ", max-parallelism " + max + ")";
          } else {
            n = 1;
            reason = "probe 1 instance: " + demand + " (K " + k + ", cap " + allowed + ")";
          }
          up = Optional.of(new ScaleUp(immediate ? ScaleUp.Kind.DEMAND : ScaleUp.Kind.PROBE, n, k,
              resourceIds(seq, n), reason));
          backlog = Optional.of(new BacklogTimer(t.sinceMs(), plus(now, cfg.sustainedBacklogTimeout()), t.adds() + 1));
        }
      } else if (covered) {
        BacklogTimer t = prev.backlog().orElse(new BacklogTimer(now, plus(now, cfg.schedulerBacklogTimeout()), 0));
        notes.add("demand covered by " + cap.requestedThreads() + " requested thread" + plural(cap.requestedThreads())
            + " still booting; backlog timer held (demand since " + (now - t.sinceMs()) + "ms)");
        backlog = Optional.of(t);
        ramp = prev.ramp();
      } else if (prev.backlog().isPresent()) {
        notes.add(planningBound ? "planning-bound: no scaling; backlog timer reset" : "no demand: backlog timer and ramp reset");
      }

      List<PendingRequest> pendingAfter = new ArrayList<>(pending);
      if (up.isPresent()) {
        for (String id : up.get().resourceIds()) {
          pendingAfter.add(new PendingRequest(id, k, now, plus(now, cfg.bootDeadline())));
        }
        seq += up.get().instances();
        notes.add(up.get().reason());
      }

      // 5. Scale-down, only if this round saw no demand at all.
      boolean demandSeen = floorDeficit || immediate || future || covered || pendingTables > 0;
      Optional<DrainStart> drain = Optional.empty();
      OptionalLong lastScaleDown = prev.lastScaleDownMs();
      if (!demandSeen && up.isEmpty()) {
        drain = scaleDown(registered, draining, lastBusy, cap);
        if (drain.isPresent()) {
          draining.put(drain.get().instanceId(), new Drain(now, 0));
          lastScaleDown = OptionalLong.of(now);
          notes.add(drain.get().reason());
          wake(now, "drain started: remove " + drain.get().instanceId() + " once it is idle");
        }
      }

      scheduleWakes(registered, draining, lastBusy, pendingAfter, backlog, lastScaleDown, cap, drain, pb, up.isPresent());

      KeeperState next = new KeeperState(backlog, ramp,
          up.isPresent() ? OptionalLong.of(now) : prev.lastScaleUpMs(), lastScaleDown, pb, lastBusy, draining,
          pendingAfter, seq, prev.scaleUpRounds() + (up.isPresent() ? 1 : 0),
          prev.scaleDownStarts() + (drain.isPresent() ? 1 : 0));
      if (notes.isEmpty()) {
        notes.add("no change: effective " + effective + ", busy " + busy + ", serviceable " + serviceable + ", PENDING tables "
            + pendingTables);
      }
      return new ScaleDecision(up, drain, removals, warnings, notes, next, wakeMs, wakeReason);
    }

    private List<PendingRequest> bootWindow(SortedMap<String, InstanceView> registered) {
      Set<String> registeredResources = new HashSet<>();
      for (InstanceView i : registered.values()) {
        i.resourceId().ifPresent(registeredResources::add);
      }
      List<PendingRequest> kept = new ArrayList<>();
      for (PendingRequest p : prev.pendingRequests()) {
        if (registeredResources.contains(p.resourceId())) {
          continue;
        }
        if (snap.requestOutcomes().get(p.resourceId()) == RequestOutcome.FAILED) {
          notes.add("request " + p.resourceId() + " failed synchronously: dropped, its demand is retried on a later round");
        } else if (now >= p.bootDeadlineMs()) {
          notes.add("request " + p.resourceId() + " did not register within dra.boot-deadline "
              + Durations.format(Duration.ofMillis(p.bootDeadlineMs() - p.requestedAtMs())) + ": no longer counted");
        } else {
          kept.add(p);
        }
      }
      return kept;
    }

    private SortedMap<String, Drain> drainProgress(SortedMap<String, InstanceView> registered) {
      SortedMap<String, Drain> draining = new TreeMap<>();
      for (Map.Entry<String, Drain> e : prev.draining().entrySet()) {
        InstanceView i = registered.get(e.getKey());
        Drain d = e.getValue();
        if (i == null) {
          notes.add("drained instance " + e.getKey() + " is gone");
          continue;
        }
        long drainedForMs = now - d.startedAtMs();
        long timeoutAt = plus(d.startedAtMs(), cfg.drainTimeout());
        String retry = d.removalAttempts() > 0 ? " (retry: release attempt " + (d.removalAttempts() + 1) + ")" : "";
        String resource = i.resourceId().orElse("");
        if (i.inFlightTasks() == 0) {
          removals.add(new Removal(i.instanceId(), resource, false, d.removalAttempts() + 1,
              "remove " + i.instanceId() + ": drained, nothing in flight after " + drainedForMs + "ms" + retry));
          draining.put(e.getKey(), d.attempted());
        } else if (now >= timeoutAt) {
          removals.add(new Removal(i.instanceId(), resource, true, d.removalAttempts() + 1,
              "remove " + i.instanceId() + " forcibly: drain-timeout " + Durations.format(cfg.drainTimeout()) + " reached with "
                  + i.inFlightTasks() + " task" + plural(i.inFlightTasks()) + " in flight (reclaimed by expiry)" + retry));
          draining.put(e.getKey(), d.attempted());
        } else {
          draining.put(e.getKey(), d);
        }
      }
      for (Removal r : removals) {
        notes.add(r.reason());
      }
      return draining;
    }

    private PlanningBound planningBound(boolean bound, int busy, Capacity cap, int pendingTables) {
      if (!bound) {
        return PlanningBound.NONE;
      }
      PlanningBound p = new PlanningBound(prev.planningBound().consecutiveRounds() + 1, prev.planningBound().warned());
      if (p.consecutiveRounds() >= PlanningBound.ROUNDS_BEFORE_WARNING && !p.warned()) {
        warnings.add(new Warning(Warning.Code.PLANNING_BOUND, "optimizer group " + snap.group() + " is planning-bound: "
            + pendingTables + " PENDING table" + plural(pendingTables) + " and no PLANNED task while "
            + (cap.activeThreads() - busy) + " of " + cap.activeThreads() + " threads are idle, for "
            + p.consecutiveRounds() + " consecutive rounds; more instances would only idle. Raise "
            + GroupConfig.MAX_PLANNING_PARALLELISM.key() + " (now " + cfg.maxPlanningParallelism() + ")"));
        p = new PlanningBound(p.consecutiveRounds(), true);
      }
      notes.add("planning-bound (" + p.consecutiveRounds() + " round" + plural(p.consecutiveRounds()) + "): not scaling");
      return p;
    }

    private Optional<DrainStart> scaleDown(SortedMap<String, InstanceView> registered, SortedMap<String, Drain> draining,
        SortedMap<String, Long> lastBusy, Capacity cap) {
      long idleTimeoutMs = cfg.executorIdleTimeout().toMillis();
      InstanceView best = null;
      long bestIdle = -1;
      for (InstanceView i : registered.values()) { // sorted by id: ties go to the smallest id
        long idleFor = now - lastBusy.get(i.instanceId());
        if (draining.containsKey(i.instanceId()) || !i.providerLaunched() || i.inFlightTasks() > 0 || idleFor < idleTimeoutMs
            || cap.activeThreads() - i.threads() < min) {
          continue;
        }
        if (idleFor > bestIdle) {
          best = i;
          bestIdle = idleFor;
        }
      }
      if (best == null) {
        return Optional.empty();
      }
      OptionalLong last = prev.lastScaleDownMs();
      if (last.isPresent() && now < plus(last.getAsLong(), cfg.scaleDownCooldown())) {
        notes.add(best.instanceId() + " idle for " + bestIdle + "ms but scale-down-cooldown runs until +"
            + (plus(last.getAsLong(), cfg.scaleDownCooldown()) - now) + "ms");
        return Optional.empty();
      }
      return Optional.of(new DrainStart(best.instanceId(), best.resourceId().orElseThrow(), bestIdle,
          "scale-down: drain " + best.instanceId() + " (" + best.threads() + " thread" + plural(best.threads()) + "), idle "
              + bestIdle + "ms ≥ executor-idle-timeout " + Durations.format(cfg.executorIdleTimeout()) + "; active threads "
              + cap.activeThreads() + " → " + (cap.activeThreads() - best.threads()) + " (min-parallelism " + min + ")"));
    }

    /**
     * The earliest deadline that could change a decision without an event; {@link ScaleDecision#NO_DEADLINE}
     * if there is none.
     */
    private void scheduleWakes(SortedMap<String, InstanceView> registered, SortedMap<String, Drain> draining,
        SortedMap<String, Long> lastBusy, List<PendingRequest> pending, Optional<BacklogTimer> backlog,
        OptionalLong lastScaleDown, Capacity cap, Optional<DrainStart> started, PlanningBound planningBound,
        boolean requestedNow) {
      backlog.ifPresent(t -> {
        if (t.nextAddAtMs() > now) {
          wake(t.nextAddAtMs(), t.firstAdd() ? "backlog gate (scheduler-backlog-timeout)" : "sustained spacing (sustained-backlog-timeout)");
        }
      });
      for (PendingRequest p : pending) {
        wake(p.bootDeadlineMs(), "boot deadline of request " + p.resourceId());
      }
      for (Map.Entry<String, Drain> e : draining.entrySet()) {
        long at = plus(e.getValue().startedAtMs(), cfg.drainTimeout());
        if (at > now) {
          wake(at, "drain-timeout of " + e.getKey());
        }
      }
      long cooldownEnd = lastScaleDown.isPresent() ? plus(lastScaleDown.getAsLong(), cfg.scaleDownCooldown()) : Long.MIN_VALUE;
      int activeAfterDrain = cap.activeThreads()
          - started.map(d -> registered.get(d.instanceId()).threads()).orElse(0);
      for (InstanceView i : registered.values()) {
        if (draining.containsKey(i.instanceId()) || !i.providerLaunched() || i.inFlightTasks() > 0
            || activeAfterDrain - i.threads() < min) {
          continue;
        }
        long at = Math.max(plus(lastBusy.get(i.instanceId()), cfg.executorIdleTimeout()), cooldownEnd);
        if (at > now) {
          wake(at, "scale-down of " + i.instanceId() + " (executor-idle-timeout / scale-down-cooldown)");
        }
      }
      if (requestedNow) {
        // A synchronous failure shows in the next snapshot: look again one interval later, ready to retry.
        wake(plus(now, cfg.sustainedBacklogTimeout()), "request outcome check");
      }
      if (!removals.isEmpty()) {
        // A failed release leaves the instance registered: retry one sustained interval later, not in a hot loop.
        wake(plus(now, cfg.sustainedBacklogTimeout()), "removal retry check");
      }
      if (planningBound.consecutiveRounds() > 0 && !planningBound.warned()) {
        wake(plus(now, cfg.sustainedBacklogTimeout()), "planning-bound re-check (second consecutive round)");
      }
    }

    private void wake(long atMs, String reason) {
      if (atMs < wakeMs) {
        wakeMs = atMs;
        wakeReason = reason;
      }
    }

    private List<String> resourceIds(long seq, int n) {
      List<String> ids = new ArrayList<>(n);
      for (int i = 0; i < n; i++) {
        ids.add(snap.group() + "-" + now + "-" + (seq + i));
      }
      return ids;
    }
  }

  static long ceilDiv(long a, long b) {
    return -Math.floorDiv(-a, b);
  }

  static int ceilDiv(int a, int b) {
    return -Math.floorDiv(-a, b);
  }

  static long plus(long t, Duration d) {
    long ms = d.toMillis();
    long r = t + ms;
    return ((t ^ r) & (ms ^ r)) < 0 ? Long.MAX_VALUE : r;
  }

  private static String plural(long n) {
    return n == 1 ? "" : "s";
  }
}
