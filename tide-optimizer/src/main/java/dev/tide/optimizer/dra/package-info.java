/**
 * The scale keeper's decision core (dynamic resource allocation, spec {@code dra.md} 8–20): pure
 * values and one pure function, no I/O and no clock.
 *
 * <ul>
 *   <li>{@link dev.tide.optimizer.dra.ScaleDecider#decide} — one round: a {@link dev.tide.optimizer.dra.GroupSnapshot}
 *       (the workload, the outcomes of the last provider calls, and what the provider holds when it was
 *       listed), the previous {@link dev.tide.optimizer.dra.KeeperState}, the group's configuration and
 *       {@code now} in, a {@link dev.tide.optimizer.dra.ScaleDecision} (requests, releases, drain,
 *       removals, warnings, the reason in notes, the next deadline and the next state) out. With DRA
 *       disabled the same function makes the floor-only rounds;
 *   <li>state between rounds: {@link dev.tide.optimizer.dra.KeeperState} (its transition table), made of
 *       {@link dev.tide.optimizer.dra.BacklogTimer}, {@link dev.tide.optimizer.dra.RampStep},
 *       {@link dev.tide.optimizer.dra.PendingRequest} (booting), {@link dev.tide.optimizer.dra.PendingRelease}
 *       (expired, being released), {@link dev.tide.optimizer.dra.Drain} and
 *       {@link dev.tide.optimizer.dra.PlanningBound};
 *   <li>how capacity is counted: {@link dev.tide.optimizer.dra.Capacity} — effective threads for demand,
 *       held threads for the cap;
 *   <li>what the shell reports and shows: {@link dev.tide.optimizer.dra.ProviderOutcome},
 *       {@link dev.tide.optimizer.dra.InstanceView}, {@link dev.tide.optimizer.dra.GroupMetrics}.
 * </ul>
 *
 * <p>The inputs are generic on purpose: threads, instances of K threads, busy and serviceable work,
 * provider resources. Only the quota-aware serviceable count and the PENDING-table signal (filled in by
 * {@link dev.tide.optimizer.dra.GroupSnapshot#fromTables}) and the planning-bound guard are specific
 * to the optimizing workload.
 */
package dev.tide.optimizer.dra;
