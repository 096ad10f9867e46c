package dev.tide.meta.core;

import dev.tide.meta.barrier.BarrierCoordinator;
import dev.tide.proto.store.SstInfo;
import dev.tide.proto.stream.Mutation;
import java.util.ArrayDeque;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The epoch pipeline: mutations waiting for a barrier (one per barrier, in request order), when the
 * next barrier is due, and the barriers in flight ({@link BarrierCoordinator}).
 *
 * <p>A reschedule's Update goes out on a short epoch with nothing held before it: when it reaches
 * the head of the queue, an ordinary barrier (its settling barrier) is injected first, and then no
 * barrier until every worker it went to has reported that all its actors passed it (a
 * {@link Event.Passed}, sent before the epoch's upload, or the epoch's collection); the Update's
 * barrier follows at once. An actor that gives vnodes away writes its epoch's changes synchronously
 * at that barrier, and the actors that take them wait for it ({@code Actor.Wiring.waitReadable}):
 * had the barrier come at any time, that write would be a whole interval of changes plus whatever
 * the barrier before still held (an aggregation writes a large epoch while it reads the next). Now
 * it is the changes made while the settling barrier was written.
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
  /** The head of the queue is an Update whose settling barrier was injected. */
  private boolean settling;
  /** The settling barrier's prev epoch, and the workers it went to that have not passed it yet. */
  private long settlingEpoch = -1;
  private final Set<Integer> unsettled = new HashSet<>();

  BarrierPipeline(long committedEpoch, long nowMs) {
    this.coordinator = new BarrierCoordinator(committedEpoch + 1);
    this.nextInjectMs = nowMs;
  }

  void enqueue(Queued q) {
    queued.add(q);
  }

  /** The mutation the next barrier carries, or null: none queued, or it is the head Update's settling barrier. */
  Queued nextMutation() {
    Queued head = queued.peek();
    if (head != null && head.op() != null && !settling) {
      settling = true;
      return null;
    }
    settling = false;
    unsettled.clear();
    settlingEpoch = -1;
    return queued.poll();
  }

  /** The next barrier is due at once (a job started, a reschedule queued, a bounded input ended). */
  void soon(long nowMs) {
    nextInjectMs = Math.min(nextInjectMs, nowMs);
  }

  boolean due(long nowMs, int maxInflight) {
    return nowMs >= nextDueMs(maxInflight);
  }

  /** When the next barrier is due: Long.MAX_VALUE while a settling barrier waits for a worker to pass it, or too many are in flight. */
  long nextDueMs(int maxInflight) {
    if (settling) {
      return unsettled.isEmpty() ? Long.MIN_VALUE : Long.MAX_VALUE;
    }
    return coordinator.inflightCount() < maxInflight ? nextInjectMs : Long.MAX_VALUE;
  }

  /** The epochs {@code (prev, curr)} of the next barrier. */
  long[] nextEpochs() {
    long prev = lastCurrEpoch < 0 ? coordinator.newEpoch() : lastCurrEpoch;
    long curr = coordinator.newEpoch();
    return new long[] {prev, curr};
  }

  /** Whether the barrier about to be injected (after {@link #nextMutation}) is a settling barrier: its workers report passing it. */
  boolean settling() {
    return settling;
  }

  void injected(long prev, long curr, long nowMs, long intervalMs, Set<Integer> workers) {
    lastCurrEpoch = curr;
    coordinator.injected(prev, nowMs, workers);
    nextInjectMs = nowMs + intervalMs;
    if (settling) {
      settlingEpoch = prev;
      unsettled.clear();
      unsettled.addAll(workers);
    }
  }

  /** Every actor of {@code worker} passed the barrier of prev epoch {@code epoch}. */
  void passed(int worker, long epoch) {
    if (epoch == settlingEpoch) {
      unsettled.remove(worker);
    }
  }

  List<BarrierCoordinator.Committed> collected(int worker, long epoch, List<SstInfo> ssts) {
    passed(worker, epoch);
    return coordinator.collected(worker, epoch, ssts);
  }

  /** A worker that left owes no report: the barriers waiting only for it become committable. */
  List<BarrierCoordinator.Committed> forget(int worker) {
    unsettled.remove(worker);
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
    settling = false;
    settlingEpoch = -1;
    unsettled.clear();
    lastCurrEpoch = -1;
    return dropped;
  }
}
