package dev.tide.optimizer.dra;

import dev.tide.common.config.Durations;
import dev.tide.optimizer.group.GroupConfig;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * The decision core of the scale keeper (dynamic resource allocation of an optimizer group): a pure
 * function of the group's snapshot, the keeper's state, the group's configuration and {@code now}. No
 * I/O, no clock reads; the same inputs give the same decision. Times are the keeper's monotonic
 * milliseconds.
 *
 * <p>One round, in order (spec 9): resources (outcomes of the last provider calls, boot deadlines,
 * reconciliation with what the provider holds) → drain progress → idle observation → planning-bound
 * check → scale-up decision (floor, immediate demand, future demand; timing gates; cap) → scale-down,
 * only if this round saw no demand at all.
 *
 * <p>Demand is the seed's: immediate demand is {@code busy + serviceable > effective}, future demand
 * is PENDING tables while {@code busy ≥ effective}, where effective threads include the requested
 * instances still booting. A round with neither resets the backlog timer and the ramp, also when it is
 * booting capacity that covers the need; a later need, such as the one an expired boot request leaves,
 * waits a new {@code scheduler-backlog-timeout}. "No demand at all", for scale-down, additionally
 * requires no PENDING table, no floor deficit and no backlog beyond the registered threads.
 *
 * <p>The cap counts every thread the provider may be running for the group ({@link Capacity#heldThreads}),
 * so requests never take the group above {@code max-parallelism}: a request past its boot deadline is
 * released through the provider and counts until the release is confirmed, because it may still start.
 *
 * <p>With dynamic allocation disabled a round is the floor-only keeper's (spec 8): it settles the
 * resources, finishes drains that were in progress, and tops the group up to {@code min-parallelism};
 * it neither scales on demand nor starts a drain.
 */
public final class ScaleDecider {
  private ScaleDecider() {}

  /** Decides one round for a group, in floor-only mode when its dynamic allocation is disabled. */
  public static ScaleDecision decide(GroupSnapshot snapshot, KeeperState state, GroupConfig config, long nowMs) {
    return decide(snapshot, state, config, Terms.OPTIMIZER, nowMs);
  }

  /** As {@link #decide(GroupSnapshot, KeeperState, GroupConfig, long)}, its reasons told in {@code terms}. */
  public static ScaleDecision decide(GroupSnapshot snapshot, KeeperState state, GroupConfig config, Terms terms, long nowMs) {
    return new Round(snapshot, state, config, terms, nowMs).run();
  }

  /** One evaluation; confined to the call of {@link #decide}. */
  private static final class Round {
    private final GroupSnapshot snap;
    private final KeeperState prev;
    private final GroupConfig cfg;
    private final Terms terms;
    private final long now;
    private final int k;
    private final int min;
    /** The cap; absent only for a floor-only group that sets none. */
    private final OptionalInt max;
    private final List<String> notes = new ArrayList<>();
    private final List<Warning> warnings = new ArrayList<>();
    private final List<Removal> removals = new ArrayList<>();
    private final List<Release> releases = new ArrayList<>();
    /** Requests still booting after this round's settlement (new requests are added at the end). */
    private final List<PendingRequest> booting = new ArrayList<>();
    private final List<PendingRelease> releasing = new ArrayList<>();
    /** Whether max-parallelism held back instances this round wanted (the floor's or the demand's). */
    private boolean capBound;
    private long wakeMs = ScaleDecision.NO_DEADLINE;
    private String wakeReason = "no deadline: only an event can change the decision";

    Round(GroupSnapshot snap, KeeperState prev, GroupConfig cfg, Terms terms, long now) {
      this.snap = snap;
      this.prev = prev;
      this.cfg = cfg;
      this.terms = terms;
      this.now = now;
      this.k = cfg.executorParallelism();
      this.min = cfg.minParallelism();
      this.max = cfg.maxParallelismIfSet();
    }

    /** An option's name in the words of the pool this round decides for. */
    private String opt(String name) {
      return terms.option(name);
    }

    ScaleDecision run() {
      SortedMap<String, InstanceView> registered = snap.instancesById();
      settleResources(registered);
      SortedMap<String, Drain> draining = drainProgress(registered);
      Capacity cap = Capacity.of(registered.values(), draining, booting, releasing);
      return cfg.draEnabled() ? scaleRound(registered, draining, cap) : floorOnlyRound(registered, draining, cap);
    }

    /** A round of a DRA group. */
    private ScaleDecision scaleRound(SortedMap<String, InstanceView> registered, SortedMap<String, Drain> draining, Capacity cap) {
      int ramp = rampAfterLastStep();

      // Idle observation. Beyond spec 17's in-flight sampling, a task handed out or finished since
      // the last round counts too (Spark's idle clock restarts at every task end): short tasks that
      // fall between rounds must not make a working instance look idle.
      SortedMap<String, Long> lastBusy = new TreeMap<>();
      for (InstanceView i : registered.values()) {
        Long seen = prev.lastBusyMs().get(i.instanceId());
        lastBusy.put(i.instanceId(), i.inFlightTasks() > 0 || seen == null ? now : Math.max(seen, Math.min(now, i.lastTaskMs())));
      }

      int effective = cap.effectiveThreads();
      int busy = cap.busyThreads(snap.busyThreads());
      int serviceable = snap.serviceablePlannedTasks();
      int pendingTables = snap.pendingTables();

      // Planning-bound check.
      boolean planningBound = cap.activeThreads() > 0 && busy < cap.activeThreads() && pendingTables > 0
          && snap.plannedTasks() == 0;
      PlanningBound pb = planningBound(planningBound, busy, cap, pendingTables);

      // Scale-up decision.
      long need = (long) busy + serviceable - effective;
      boolean floorDeficit = effective < min;
      boolean immediate = !planningBound && need > 0;
      boolean future = !planningBound && !immediate && pendingTables > 0 && busy >= effective;
      int allowed = allowedInstances(cap);

      Optional<BacklogTimer> backlog = Optional.empty();
      int nextRamp = 1;
      Optional<RampStep> step = Optional.empty();
      Optional<ScaleUp> up = Optional.empty();
      if (floorDeficit) {
        up = floor("floor", cap);
        if (prev.backlog().isPresent() || ramp != 1) {
          notes.add("floor deficit resets the backlog timer and the ramp");
        }
      } else if (immediate || future) {
        BacklogTimer t = prev.backlog().orElse(BacklogTimer.start(now));
        long nextAddAt = t.nextAddAtMs(cfg);
        String demand = immediate
            ? "need " + terms.shares(need) + " (busy " + busy + " + serviceable " + serviceable
                + " − effective " + effective + ")"
            : effective == 0
                ? "cold start: " + pendingTables + " PENDING table" + plural(pendingTables) + " and no thread to plan them"
                : "future demand: " + pendingTables + " PENDING table" + plural(pendingTables) + " while all " + effective
                    + " threads are busy";
        if (now < nextAddAt) {
          notes.add(demand + "; " + (t.firstAdd() ? "backlog gate" : "sustained spacing") + " until +"
              + (nextAddAt - now) + "ms (demand since " + (now - t.sinceMs()) + "ms)");
          backlog = Optional.of(t);
          nextRamp = ramp;
        } else if (allowed == 0) {
          capBound = true;
          notes.add(demand + "; at the cap: " + cap.heldThreads() + " " + terms.sharePlural() + " held leave no room under "
              + opt("max-parallelism") + " " + max.getAsInt() + " for " + terms.aUnit() + " of " + terms.shares(k));
          backlog = Optional.of(t);
        } else {
          int n;
          String reason;
          if (immediate) {
            int want = (int) Math.min(Integer.MAX_VALUE, ceilDiv(need, k));
            n = Math.min(Math.min(want, ramp), allowed);
            capBound = n < Math.min(want, ramp);
            // Spark ExecutorAllocationManager: double when the whole ramp step was used, else reset.
            nextRamp = n == ramp ? ramp * 2 : 1;
            reason = "scale-up " + terms.units(n) + ": need " + terms.shares(need) + ", ramp "
                + ramp + ", cap " + allowed + " (busy " + busy + " + serviceable " + serviceable + " − effective "
                + effective + "; K " + k + ", " + opt("max-parallelism") + " " + max.getAsInt() + ")";
          } else {
            n = 1;
            reason = "probe " + terms.units(1) + ": " + demand + " (K " + k + ", cap " + allowed + ")";
          }
          up = Optional.of(new ScaleUp(immediate ? ScaleUp.Kind.DEMAND : ScaleUp.Kind.PROBE, n, k, resourceIds(n), reason));
          if (immediate) {
            step = Optional.of(new RampStep(ramp, up.get().resourceIds()));
          }
          backlog = Optional.of(t.added(now));
        }
      } else if (prev.backlog().isPresent()) {
        notes.add(planningBound ? "planning-bound: no scaling; backlog timer reset" : "no demand: backlog timer and ramp reset");
      }
      List<PendingRequest> pendingAfter = withRequests(up);

      // Scale-down, only if this round saw no demand at all.
      boolean demandSeen = floorDeficit || immediate || future || pendingTables > 0 || (long) busy + serviceable > cap.activeThreads();
      Optional<DrainStart> drain = Optional.empty();
      OptionalLong lastScaleDown = prev.lastScaleDownMs();
      if (!demandSeen && up.isEmpty()) {
        drain = scaleDown(registered, draining, lastBusy, cap);
        if (drain.isPresent()) {
          draining.put(drain.get().instanceId(), Drain.start(now, drain.get().resourceId(),
              registered.get(drain.get().instanceId()).threads()));
          lastScaleDown = OptionalLong.of(now);
          notes.add(drain.get().reason());
          wake(now, "drain started: remove " + drain.get().instanceId() + " once it is idle");
        }
      }

      scheduleWakes(draining, pendingAfter, up.isPresent());
      backlog.ifPresent(t -> {
        long at = t.nextAddAtMs(cfg);
        if (at > now) {
          wake(at, t.firstAdd() ? "backlog gate (scheduler-backlog-timeout)" : "sustained spacing (sustained-backlog-timeout)");
        }
      });
      scaleDownWakes(registered, draining, lastBusy, lastScaleDown, cap, drain);
      if (pb.consecutiveRounds() > 0 && !pb.warned()) {
        wake(plus(now, cfg.sustainedBacklogTimeout()), "planning-bound re-check (second consecutive round)");
      }

      KeeperState next = new KeeperState(backlog, nextRamp, step, lastScaleDown, pb, lastBusy, draining, pendingAfter, releasing,
          prev.requestSeq() + up.map(ScaleUp::instances).orElse(0), prev.scaleUpRounds() + (up.isPresent() ? 1 : 0),
          prev.scaleDownStarts() + (drain.isPresent() ? 1 : 0));
      if (notes.isEmpty()) {
        notes.add("no change: effective " + effective + ", busy " + busy + ", serviceable " + serviceable + ", PENDING tables "
            + pendingTables);
      }
      return new ScaleDecision(up, drain, removals, releases, warnings, notes, next, wakeMs, wakeReason);
    }

    /** A round of the floor-only keeper (DRA disabled): settle resources, finish drains, keep the floor. */
    private ScaleDecision floorOnlyRound(SortedMap<String, InstanceView> registered, SortedMap<String, Drain> draining,
        Capacity cap) {
      String label = "floor-only (dynamic allocation off)";
      Optional<ScaleUp> up = cap.effectiveThreads() < min ? floor(label, cap) : Optional.empty();
      if (up.isEmpty() && cap.effectiveThreads() >= min) {
        notes.add(label + ": effective " + cap.effectiveThreads() + " ≥ " + opt("min-parallelism") + " " + min);
      }
      List<PendingRequest> pendingAfter = withRequests(up);
      scheduleWakes(draining, pendingAfter, up.isPresent());
      KeeperState next = new KeeperState(Optional.empty(), 1, Optional.empty(), OptionalLong.empty(), PlanningBound.NONE, Map.of(),
          draining, pendingAfter, releasing, prev.requestSeq() + up.map(ScaleUp::instances).orElse(0),
          prev.scaleUpRounds() + (up.isPresent() ? 1 : 0), prev.scaleDownStarts());
      return new ScaleDecision(up, Optional.empty(), removals, releases, warnings, notes, next, wakeMs, wakeReason);
    }

    /** The ramp to use: the last step's again if one of its requests failed synchronously (spec 13). */
    private int rampAfterLastStep() {
      if (prev.lastStep().isEmpty()) {
        return prev.ramp();
      }
      RampStep step = prev.lastStep().get();
      long failed = step.resourceIds().stream().filter(id -> snap.outcome(id).orElse(null) == ProviderOutcome.REQUEST_FAILED)
          .count();
      if (failed == 0) {
        return prev.ramp();
      }
      notes.add("the ramp stays at " + step.ramp() + ": " + failed + " request" + plural(failed)
          + " of the last step failed synchronously, so the step is retried");
      return step.ramp();
    }

    /** Instances of K threads that fit under the cap. */
    private int allowedInstances(Capacity cap) {
      return max.isPresent() ? Math.max(0, max.getAsInt() - cap.heldThreads()) / k : Integer.MAX_VALUE;
    }

    /** The floor top-up (spec 12): every missing instance at once, capped; or why none fits. */
    private Optional<ScaleUp> floor(String label, Capacity cap) {
      int effective = cap.effectiveThreads();
      int want = ceilDiv(min - effective, k);
      int n = Math.min(want, allowedInstances(cap));
      capBound = n < want;
      String deficit = label + ": effective " + effective + " < " + opt("min-parallelism") + " " + min;
      if (n > 0) {
        return Optional.of(new ScaleUp(ScaleUp.Kind.FLOOR, n, k, resourceIds(n), deficit + "; adding " + terms.units(n)
            + " of " + terms.shares(k) + " at once" + max.stream().mapToObj(m -> " (cap " + m + ")")
            .findFirst().orElse("")));
      }
      notes.add(deficit + ", but " + opt("max-parallelism") + " " + max.getAsInt() + " leaves no room for " + terms.aUnit() + " of "
          + terms.shares(k) + ": " + cap.heldThreads() + " " + terms.sharePlural() + " held"
          + (cap.releasingThreads() + cap.drainingUnreleasedThreads() > 0
              ? ", " + (cap.releasingThreads() + cap.drainingUnreleasedThreads()) + " of them by resources being released" : ""));
      return Optional.empty();
    }

    private List<PendingRequest> withRequests(Optional<ScaleUp> up) {
      List<PendingRequest> pendingAfter = new ArrayList<>(booting);
      up.ifPresent(u -> {
        for (String id : u.resourceIds()) {
          pendingAfter.add(new PendingRequest(id, k, now, plus(now, cfg.bootDeadline())));
        }
        notes.add(u.reason());
      });
      return pendingAfter;
    }

    /**
     * Settles the resources the keeper requested or found: outcomes of the last provider calls, boot
     * deadlines (an expired request is released, spec 15), and, when the provider was listed,
     * reconciliation: entries the provider no longer holds are forgotten, and resources it holds that
     * the keeper does not know count as booting from now on. Fills {@link #booting}, {@link #releasing}
     * and {@link #releases}.
     */
    private void settleResources(SortedMap<String, InstanceView> registered) {
      Set<String> registeredResources = new HashSet<>();
      for (InstanceView i : registered.values()) {
        i.resourceId().ifPresent(registeredResources::add);
      }
      Optional<Map<String, Integer>> held = snap.providerHeld();
      Set<String> known = new HashSet<>(registeredResources);
      for (PendingRequest p : prev.pendingRequests()) {
        known.add(p.resourceId());
        ProviderOutcome outcome = snap.outcome(p.resourceId()).orElse(null);
        if (registeredResources.contains(p.resourceId())) {
          continue;
        }
        if (outcome == ProviderOutcome.REQUEST_FAILED) {
          notes.add("request " + p.resourceId() + " failed synchronously: dropped, its demand is retried on a later round");
        } else if (held.isPresent() && !held.get().containsKey(p.resourceId())) {
          notes.add("request " + p.resourceId() + " is no longer held by the provider: no longer counted");
        } else if (now >= p.bootDeadlineMs()) {
          notes.add("request " + p.resourceId() + " did not register within dra.boot-deadline "
              + Durations.format(Duration.ofMillis(p.bootDeadlineMs() - p.requestedAtMs()))
              + ": released, and counted against max-parallelism until the release is confirmed");
          releasing.add(release(new PendingRelease(p.resourceId(), p.threads(), now, 0, now)));
        } else {
          booting.add(p);
        }
      }
      for (PendingRelease r : prev.releases()) {
        known.add(r.resourceId());
        ProviderOutcome outcome = snap.outcome(r.resourceId()).orElse(null);
        if (outcome == ProviderOutcome.RELEASED) {
          notes.add("expired request " + r.resourceId() + " released");
        } else if (held.isPresent() && !held.get().containsKey(r.resourceId())) {
          notes.add("expired request " + r.resourceId() + " is no longer held by the provider");
        } else if (registeredResources.contains(r.resourceId())) {
          notes.add("expired request " + r.resourceId() + " registered before its release was confirmed: kept as an instance");
        } else {
          if (outcome == ProviderOutcome.RELEASE_FAILED) {
            notes.add("release of expired request " + r.resourceId() + " failed (attempt " + r.attempts() + "): still counted"
                + " against max-parallelism, retried in " + Math.max(0, r.nextAttemptMs() - now) + "ms");
          }
          releasing.add(now >= r.nextAttemptMs() ? release(r) : r);
        }
      }
      held.ifPresent(h -> h.forEach((resourceId, threads) -> {
        if (!known.contains(resourceId)) {
          notes.add("the provider holds " + resourceId + ", unknown to the keeper: counted as booting until its boot deadline");
          booting.add(new PendingRequest(resourceId, Math.max(1, threads), now, plus(now, cfg.bootDeadline())));
        }
      }));
    }

    /** Decides the release of {@code r} now; the retry, should it fail, is due one sustained interval later. */
    private PendingRelease release(PendingRelease r) {
      return release(r, r.attempts() > 0 ? "retry" : "request past its boot deadline");
    }

    private PendingRelease release(PendingRelease r, String why) {
      releases.add(new Release(r.resourceId(), r.attempts() + 1, "release " + r.resourceId() + " (" + why
          + (r.attempts() > 0 ? "; attempt " + (r.attempts() + 1) : "") + ")"));
      return r.attempted(retryAt());
    }

    private long retryAt() {
      return plus(now, cfg.sustainedBacklogTimeout());
    }

    private SortedMap<String, Drain> drainProgress(SortedMap<String, InstanceView> registered) {
      SortedMap<String, Drain> draining = new TreeMap<>();
      SortedMap<String, Drain> drains = new TreeMap<>(prev.draining());
      for (InstanceView i : registered.values()) {
        if (i.leaving() && i.providerLaunched() && !drains.containsKey(i.instanceId())) {
          // Drained by someone else: adopted, so that its resource is released once it is idle (not at a
          // boot deadline, not while it drains). Not a scale-down of the keeper's: no cooldown starts.
          drains.put(i.instanceId(), Drain.start(now, i.resourceId().orElseThrow(), i.threads()));
          notes.add(terms.unit() + " " + i.instanceId() + " is being drained by someone else: its resource is released once it is idle");
        }
      }
      for (Map.Entry<String, Drain> e : drains.entrySet()) {
        InstanceView i = registered.get(e.getKey());
        Drain d = e.getValue();
        if (i == null) {
          // Gone without a confirmed release: released now, unless a removal already did (its outcome says so).
          boolean removed = d.released() || d.removalAttempts() > 0 && snap.outcome(d.resourceId()).orElse(null) != ProviderOutcome.RELEASE_FAILED;
          if (removed || d.resourceId().isEmpty()) {
            notes.add("drained " + terms.unit() + " " + e.getKey() + " is gone");
          } else {
            releasing.add(release(new PendingRelease(d.resourceId(), Math.max(1, d.threads()), now, 0, now),
                "drained " + terms.unit() + " " + e.getKey() + " is gone before its removal"));
          }
          continue;
        }
        String resource = i.resourceId().orElse("");
        ProviderOutcome outcome = d.removalAttempts() > 0 ? snap.outcome(resource).orElse(null) : null;
        if (outcome == ProviderOutcome.RELEASED) {
          d = d.confirmedReleased();
          notes.add("drained " + terms.unit() + " " + i.instanceId() + " released; waiting for it to leave");
        } else if (outcome == ProviderOutcome.RELEASE_FAILED) {
          notes.add("release of drained " + terms.unit() + " " + i.instanceId() + " failed: the drain is kept, the removal retried in "
              + Math.max(0, d.nextAttemptMs() - now) + "ms");
        }
        long timeoutAt = plus(d.startedAtMs(), cfg.drainTimeout());
        boolean idle = i.inFlightTasks() == 0;
        if (d.released() || now < d.nextAttemptMs() || !idle && now < timeoutAt) {
          draining.put(e.getKey(), d);
          continue;
        }
        String retry = d.removalAttempts() > 0 ? " (retry: release attempt " + (d.removalAttempts() + 1) + ")" : "";
        Removal r = idle
            ? new Removal(i.instanceId(), resource, false, d.removalAttempts() + 1,
                "remove " + i.instanceId() + ": drained, nothing in flight after " + (now - d.startedAtMs()) + "ms" + retry)
            : new Removal(i.instanceId(), resource, true, d.removalAttempts() + 1,
                "remove " + i.instanceId() + " forcibly: " + opt("drain-timeout") + " " + Durations.format(cfg.drainTimeout()) + " reached with "
                    + i.inFlightTasks() + " task" + plural(i.inFlightTasks()) + " in flight (reclaimed by expiry)" + retry);
        removals.add(r);
        notes.add(r.reason());
        draining.put(e.getKey(), d.attempted(retryAt()));
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
        notes.add(best.instanceId() + " idle for " + bestIdle + "ms but " + opt("scale-down-cooldown") + " runs until +"
            + (plus(last.getAsLong(), cfg.scaleDownCooldown()) - now) + "ms");
        return Optional.empty();
      }
      return Optional.of(new DrainStart(best.instanceId(), best.resourceId().orElseThrow(), bestIdle,
          "scale-down: drain " + best.instanceId() + " (" + terms.shares(best.threads()) + "), idle "
              + bestIdle + "ms ≥ " + opt("executor-idle-timeout") + " " + Durations.format(cfg.executorIdleTimeout()) + "; active "
              + terms.sharePlural() + " " + cap.activeThreads() + " → " + (cap.activeThreads() - best.threads()) + " ("
              + opt("min-parallelism") + " " + min + ")"));
    }

    /**
     * The earliest deadline that could change a decision without an event; {@link ScaleDecision#NO_DEADLINE}

    /** Deadlines of the resources and drains (both modes): the earliest becomes the round's next evaluation. */
    private void scheduleWakes(SortedMap<String, Drain> draining, List<PendingRequest> pending, boolean requestedNow) {
      if (capBound && !(releases.isEmpty() && removals.isEmpty())) {
        // The cap held instances back that this round's releases may make room for: look again once they are realized.
        wake(now, "re-evaluation after the releases: the cap held back instances they may make room for");
      }
      for (PendingRequest p : pending) {
        wake(p.bootDeadlineMs(), "boot deadline of request " + p.resourceId());
      }
      for (PendingRelease r : releasing) {
        wake(r.nextAttemptMs(), "release retry of " + r.resourceId());
      }
      for (Map.Entry<String, Drain> e : draining.entrySet()) {
        Drain d = e.getValue();
        if (d.released()) {
          continue;
        }
        // Before the first removal the drain waits for its drain-timeout; after a failed one, for the retry.
        long at = d.removalAttempts() > 0 ? d.nextAttemptMs() : plus(d.startedAtMs(), cfg.drainTimeout());
        if (at > now) {
          wake(at, d.removalAttempts() > 0 ? "removal retry of " + e.getKey() : "drain-timeout of " + e.getKey());
        }
      }
      if (requestedNow) {
        // A synchronous failure shows in the next snapshot: look again one interval later, ready to retry.
        wake(plus(now, cfg.sustainedBacklogTimeout()), "request outcome check");
      }
    }

    /** When an idle instance becomes a scale-down candidate (idle timeout, cooldown). */
    private void scaleDownWakes(SortedMap<String, InstanceView> registered, SortedMap<String, Drain> draining,
        SortedMap<String, Long> lastBusy, OptionalLong lastScaleDown, Capacity cap, Optional<DrainStart> started) {
      long cooldownEnd = lastScaleDown.isPresent() ? plus(lastScaleDown.getAsLong(), cfg.scaleDownCooldown()) : Long.MIN_VALUE;
      int activeAfterDrain = cap.activeThreads() - started.map(d -> registered.get(d.instanceId()).threads()).orElse(0);
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
    }

    private void wake(long atMs, String reason) {
      if (atMs < wakeMs) {
        wakeMs = atMs;
        wakeReason = reason;
      }
    }

    private List<String> resourceIds(int n) {
      List<String> ids = new ArrayList<>(n);
      for (int i = 0; i < n; i++) {
        ids.add(snap.group() + "-" + now + "-" + (prev.requestSeq() + i));
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
    return Terms.plural(n);
  }
}
