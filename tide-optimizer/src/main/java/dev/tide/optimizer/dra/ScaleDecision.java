package dev.tide.optimizer.dra;

import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * What one keeper round decided, and why. The shell realizes it in this order: removals and releases
 * (provider release, then the record is deleted), the drain start (mark the instance draining), the
 * scale-up (one provider request per resource id); the outcome of every provider call goes into the
 * next snapshot. Then it stores {@link #state} and schedules the next round at {@link #nextEvaluationMs},
 * or earlier on an event that changes the snapshot: a table turning PENDING, tasks turning PLANNED,
 * SCHEDULED or finishing, an instance registering or expiring. Time alone changes a decision only at
 * the deadlines this core returns, so with event wake-ups the first scale-out lands at
 * scheduler-backlog-timeout exactly.
 *
 * @param scaleUp instances to request
 * @param drain the instance to start draining
 * @param removals draining instances to remove
 * @param releases resources to release that no instance stands for (expired requests)
 * @param warnings warnings to log (already edge-triggered)
 * @param notes why the round did (or did not do) what it did, one line per fact, for the log
 * @param state the keeper state after this round
 * @param nextEvaluationMs the earliest deadline at which a decision could change without an event (backlog
 *     gate, sustained spacing, boot deadline, idle timeout, cooldown, drain timeout, planning-bound
 *     re-check, release retry), {@link #NO_DEADLINE} if none; equal to the round's {@code now} right after a drain
 *     start, and after releases when the cap held instances back (the next round sees what they freed)
 * @param nextEvaluationReason what that time is (backlog gate, boot deadline, idle timeout, …)
 */
public record ScaleDecision(
    Optional<ScaleUp> scaleUp,
    Optional<DrainStart> drain,
    List<Removal> removals,
    List<Release> releases,
    List<Warning> warnings,
    List<String> notes,
    KeeperState state,
    long nextEvaluationMs,
    String nextEvaluationReason) {

  /** {@link #nextEvaluationMs} when no deadline is pending. */
  public static final long NO_DEADLINE = Long.MAX_VALUE;

  public ScaleDecision {
    Objects.requireNonNull(scaleUp, "scaleUp");
    Objects.requireNonNull(drain, "drain");
    Objects.requireNonNull(state, "state");
    removals = List.copyOf(removals);
    releases = List.copyOf(releases);
    warnings = List.copyOf(warnings);
    notes = List.copyOf(notes);
  }

  /** Instances this round requests (0 when none). */
  public int instancesRequested() {
    return scaleUp.map(ScaleUp::instances).orElse(0);
  }

  /** Whether the round changes nothing outside the keeper's own state. */
  public boolean noChange() {
    return scaleUp.isEmpty() && drain.isEmpty() && removals.isEmpty() && releases.isEmpty();
  }

  /** The notes as one log line. */
  public String summary() {
    return String.join("; ", notes);
  }
}
