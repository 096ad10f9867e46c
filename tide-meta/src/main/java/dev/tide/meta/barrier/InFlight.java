package dev.tide.meta.barrier;

import dev.tide.proto.store.SstInfo;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/** An injected barrier whose previous epoch is not committed yet: workers still to report, SSTs so far. */
final class InFlight {
  final long epoch;
  final long injectMs;
  final Set<Integer> pending;
  final List<SstInfo> ssts = new ArrayList<>();

  InFlight(long epoch, long injectMs, Set<Integer> workers) {
    this.epoch = epoch;
    this.injectMs = injectMs;
    this.pending = new TreeSet<>(workers);
  }
}
