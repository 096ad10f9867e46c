/**
 * The scale keeper's shell: the I/O around the pure decision core of {@link dev.tide.optimizer.dra}.
 *
 * <p>{@link dev.tide.optimizer.keeper.GroupKeepers} is the one entry point: optimizer-group CRUD with
 * validation, persistence through {@link dev.tide.optimizer.keeper.GroupStore}, and per group one
 * driver whose rounds run on an injected scheduler over an injected clock (its monotonic reading for
 * every deadline). A round is: snapshot ({@link dev.tide.optimizer.keeper.GroupLoadSource} tables and
 * instances, the outcomes of the last round's provider calls, and, at the group's first round and every
 * safety round, what the provider lists for the group) → {@link dev.tide.optimizer.dra.ScaleDecider#decide}
 * → realize (removals and releases: provider release, then the record is deleted; the drain start:
 * {@code GroupLoadSource.drain}; the scale-up: one provider request per resource id, then its
 * {@link dev.tide.optimizer.keeper.ResourceRecord} is persisted) → schedule the next round at the
 * decision's deadline, or the safety round if earlier. Events of the load source and configuration
 * changes wake the keeper early, so the first scale-out of a backlog lands at
 * {@code scheduler-backlog-timeout} exactly.
 *
 * <p>Realization outcomes feed the next round, never the current one: a request the provider refuses
 * is reported as {@code REQUEST_FAILED} and its step retried by a later decision; a request whose
 * record fails to persist still counts ({@code LAUNCHED_UNPERSISTED}); a release that fails
 * ({@code RELEASE_FAILED}) keeps the resource counted against the cap and is decided again. A released
 * instance stays in the snapshot until it expires or unregisters as it stops.
 *
 * <p>Why one lock, not one thread: CRUD calls come from RPC threads and must answer with the refusal
 * or the new view, so they run under the same lock as rounds; the load source's listener never takes
 * it (it only submits a task). Provider calls run under the lock: a slow release (a process given
 * its stop timeout) delays other groups' rounds, which only time-gated decisions would notice, and
 * they catch up on the next round.
 */
package dev.tide.optimizer.keeper;
