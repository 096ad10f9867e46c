package dev.tide.meta.core;

import dev.tide.meta.barrier.BarrierCoordinator;
import dev.tide.proto.store.SstInfo;
import dev.tide.proto.stream.Mutation;
import java.util.ArrayDeque;
import java.util.List;
import java.util.Set;

/**
 * The epoch pipeline: mutations waiting for a barrier (one per barrier, in request order), when the
 * next barrier is due, and the barriers in flight ({@link BarrierCoordinator}).
 *
 * <p>Thread-safety: confined to the core.
 */
final class BarrierPipeline {
  /** A mutation waiting for a barrier; {@code op} for an Update, {@code dropping} for a Stop. */
  record Queued(Mutation mutation, RescheduleOp op, JobEntry dropping) {}

  private final BarrierCoordinator coordinator;
  private final ArrayDeque<Queued> queued = new ArrayDeque<>();
  private long lastCurrEpoch = -1;
  private long nextInjectMs;

  BarrierPipeline(long committedEpoch, long nowMs) {
    this.coordinator = new BarrierCoordinator(committedEpoch + 1);
    this.nextInjectMs = nowMs;
  }

  void enqueue(Queued q) {
    queued.add(q);
  }

  Queued nextMutation() {
    return queued.poll();
  }

  /** The next barrier is due at once (a job started, a reschedule queued, a bounded input ended). */
  void soon(long nowMs) {
    nextInjectMs = Math.min(nextInjectMs, nowMs);
  }

  boolean due(long nowMs, int maxInflight) {
    return nowMs >= nextInjectMs && coordinator.inflightCount() < maxInflight;
  }

  long nextInjectMs() {
    return nextInjectMs;
  }

  /** The epochs {@code (prev, curr)} of the next barrier. */
  long[] nextEpochs() {
    long prev = lastCurrEpoch < 0 ? coordinator.newEpoch() : lastCurrEpoch;
    long curr = coordinator.newEpoch();
    return new long[] {prev, curr};
  }

  void injected(long prev, long curr, long nowMs, long intervalMs, Set<Integer> workers) {
    lastCurrEpoch = curr;
    coordinator.injected(prev, nowMs, workers);
    nextInjectMs = nowMs + intervalMs;
  }

  List<BarrierCoordinator.Committed> collected(int worker, long epoch, List<SstInfo> ssts) {
    return coordinator.collected(worker, epoch, ssts);
  }

  /** A worker that left owes no report: the barriers waiting only for it become committable. */
  List<BarrierCoordinator.Committed> forget(int worker) {
    return coordinator.forget(worker);
  }

  int inflight() {
    return coordinator.inflightCount();
  }

  /** Recovery: in-flight barriers never commit, queued mutations are dropped, epochs start afresh. */
  List<Queued> abort() {
    coordinator.abort();
    List<Queued> dropped = List.copyOf(queued);
    queued.clear();
    lastCurrEpoch = -1;
    return dropped;
  }
}
