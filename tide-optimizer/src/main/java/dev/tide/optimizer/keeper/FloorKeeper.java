package dev.tide.optimizer.keeper;

import dev.tide.optimizer.dra.InstanceView;
import dev.tide.optimizer.dra.KeeperState;
import dev.tide.optimizer.dra.PendingRequest;
import dev.tide.optimizer.dra.GroupSnapshot;
import dev.tide.optimizer.dra.RequestOutcome;
import dev.tide.optimizer.dra.ScaleUp;
import dev.tide.optimizer.group.GroupConfig;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * The slow floor-only keeper of groups without dynamic allocation (spec 8): every
 * {@link #CHECK_INTERVAL} it tops the group up to {@code min-parallelism} threads, counting requested
 * instances still booting (the boot-window accounting that disabling DRA keeps), and never scales down.
 * A pure function like {@link dev.tide.optimizer.dra.ScaleDecider}.
 */
final class FloorKeeper {
  /** How often a group without DRA is checked. */
  static final Duration CHECK_INTERVAL = Duration.ofMinutes(1);

  private FloorKeeper() {}

  /** What one floor check decided. */
  record Decision(Optional<ScaleUp> scaleUp, KeeperState state, String reason) {}

  static Decision decide(GroupSnapshot snap, KeeperState prev, GroupConfig cfg, long now) {
    Set<String> registered = new HashSet<>();
    int threads = 0;
    for (InstanceView i : snap.instances()) {
      i.resourceId().ifPresent(registered::add);
      threads += i.threads();
    }
    List<PendingRequest> pending = new ArrayList<>();
    for (PendingRequest p : prev.pendingRequests()) {
      if (!registered.contains(p.resourceId()) && snap.requestOutcomes().get(p.resourceId()) != RequestOutcome.FAILED
          && now < p.bootDeadlineMs()) {
        pending.add(p);
      }
    }
    int effective = threads + pending.stream().mapToInt(PendingRequest::threads).sum();
    int k = cfg.executorParallelism();
    int min = cfg.minParallelism();
    int n = effective >= min ? 0 : -Math.floorDiv(-(min - effective), k);
    if (cfg.maxParallelismIfSet().isPresent()) {
      n = Math.min(n, Math.max(0, cfg.maxParallelismIfSet().getAsInt() - effective) / k);
    }
    if (n == 0) {
      return new Decision(Optional.empty(), withPending(prev, pending, prev.requestSeq(), 0),
          "floor-only: effective " + effective + " ≥ min-parallelism " + min + " (or no room under the cap)");
    }
    List<String> ids = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      String id = snap.group() + "-" + now + "-" + (prev.requestSeq() + i);
      ids.add(id);
      pending.add(new PendingRequest(id, k, now, now + cfg.bootDeadline().toMillis()));
    }
    String reason = "floor-only (dynamic allocation off): effective " + effective + " < min-parallelism " + min + "; adding " + n
        + " instance" + (n == 1 ? "" : "s") + " of " + k + " thread" + (k == 1 ? "" : "s");
    return new Decision(Optional.of(new ScaleUp(ScaleUp.Kind.FLOOR, n, k, ids, reason)),
        withPending(prev, pending, prev.requestSeq() + n, 1), reason);
  }

  private static KeeperState withPending(KeeperState s, List<PendingRequest> pending, long seq, int rounds) {
    return new KeeperState(s.backlog(), s.ramp(), s.lastScaleUpMs(), s.lastScaleDownMs(), s.planningBound(), s.lastBusyMs(),
        s.draining(), pending, seq, s.scaleUpRounds() + rounds, s.scaleDownStarts());
  }
}
