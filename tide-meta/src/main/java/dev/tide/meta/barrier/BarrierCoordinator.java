package dev.tide.meta.barrier;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import dev.tide.proto.store.SstInfo;

/**
 * The epoch pipeline: which barriers are in flight and which may commit. Pure bookkeeping, driven
 * by the meta thread: barriers are committed strictly in injection order, each once every worker it
 * was injected into has reported its previous epoch.
 *
 * <p>Thread-safety: confined to the meta driver thread.
 */
public final class BarrierCoordinator {
  /** A committed epoch: the SSTs all workers wrote in it and when its barrier was injected. */
  public record Committed(long epoch, List<SstInfo> ssts, long injectMs) {}

  private final ArrayDeque<InFlight> inflight = new ArrayDeque<>();
  private long nextEpoch;

  public BarrierCoordinator(long firstEpoch) {
    this.nextEpoch = firstEpoch;
  }

  /** A fresh epoch number, greater than every one handed out before. */
  public long newEpoch() {
    return nextEpoch++;
  }

  public int inflightCount() {
    return inflight.size();
  }

  /** Records an injected barrier whose previous epoch {@code epoch} the given workers must report. */
  public void injected(long epoch, long injectMs, Set<Integer> workers) {
    inflight.add(new InFlight(epoch, injectMs, workers));
  }

  /** A worker finished {@code epoch}; returns the epochs that became committable, in order. */
  public List<Committed> collected(int worker, long epoch, List<SstInfo> ssts) {
    for (InFlight f : inflight) {
      if (f.epoch == epoch && f.pending.remove(worker)) {
        f.ssts.addAll(ssts);
        break;
      }
    }
    return committable();
  }

  private List<Committed> committable() {
    List<Committed> out = new ArrayList<>();
    while (!inflight.isEmpty() && inflight.peek().pending.isEmpty()) {
      InFlight f = inflight.poll();
      out.add(new Committed(f.epoch, List.copyOf(f.ssts), f.injectMs));
    }
    return out;
  }

  /** A worker that left owes no report; returns the epochs that became committable, in order. */
  public List<Committed> forget(int worker) {
    inflight.forEach(f -> f.pending.remove(worker));
    return committable();
  }

  /** Forgets every in-flight barrier (recovery): their epochs never commit. */
  public void abort() {
    inflight.clear();
  }
}
