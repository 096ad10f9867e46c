package dev.tide.optimizer.dra;

import dev.tide.optimizer.group.GroupConfig;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** Hand-built inputs for the pure scale core. */
final class Fixtures {
  static final long T0 = 1_700_000_000_000L;
  static final long S = 1000;
  static final long MIN = 60 * S;

  private Fixtures() {}

  /**
   * DRA on, provider kubernetes, max-parallelism 1024, K 1, defaults otherwise (backlog 60 s, sustained 30 s); then {@code kv}
   * (a null value removes the key).
   */
  static GroupConfig cfg(String... kv) {
    Map<String, String> m = new HashMap<>();
    m.put("dynamic-allocation.enabled", "true");
    m.put("dynamic-allocation.max-parallelism", "1024");
    for (int i = 0; i < kv.length; i += 2) {
      if (kv[i + 1] == null) {
        m.remove(kv[i]);
      } else {
        m.put(kv[i], kv[i + 1]);
      }
    }
    return GroupConfig.parse(m, "kubernetes");
  }

  static Snap snap() {
    return new Snap();
  }

  /** Builder of a {@link GroupSnapshot}; serviceable defaults to planned. */
  static final class Snap {
    private int busy;
    private int planned;
    private Integer serviceable;
    private int pendingTables;
    private final List<InstanceView> instances = new ArrayList<>();
    private final Map<String, ProviderOutcome> outcomes = new HashMap<>();
    private Map<String, Integer> providerHeld;

    Snap busy(int n) {
      busy = n;
      return this;
    }

    Snap planned(int n) {
      planned = n;
      return this;
    }

    Snap serviceable(int n) {
      serviceable = n;
      return this;
    }

    Snap pendingTables(int n) {
      pendingTables = n;
      return this;
    }

    /** A provider-launched instance with resource id {@code "res-" + id}. */
    Snap launched(String id, int threads, int inFlight) {
      instances.add(InstanceView.launched(id, threads, inFlight, "res-" + id));
      return this;
    }

    /** A launched instance with nothing in flight that was last handed or finished a task at {@code lastTaskMs}. */
    Snap launchedWorkedAt(String id, int threads, long lastTaskMs) {
      instances.add(InstanceView.launched(id, threads, 0, "res-" + id).withLastTaskAt(lastTaskMs));
      return this;
    }

    Snap launchedAs(String id, int threads, int inFlight, String resourceId) {
      instances.add(InstanceView.launched(id, threads, inFlight, resourceId));
      return this;
    }

    Snap manual(String id, int threads, int inFlight) {
      instances.add(InstanceView.manual(id, threads, inFlight));
      return this;
    }

    /** {@code n} launched instances {@code i1..in} of {@code threads} threads, all threads busy. */
    Snap busyInstances(int n, int threads) {
      for (int i = 1; i <= n; i++) {
        launched("i" + i, threads, threads);
      }
      busy += n * threads;
      return this;
    }

    Snap outcome(String resourceId, ProviderOutcome o) {
      outcomes.put(resourceId, o);
      return this;
    }

    /** The provider was listed for this round and holds {@code resourceId} with {@code threads} threads. */
    Snap held(String resourceId, int threads) {
      if (providerHeld == null) {
        providerHeld = new HashMap<>();
      }
      providerHeld.put(resourceId, threads);
      return this;
    }

    /** The provider was listed for this round and holds nothing (beyond what {@link #held} adds). */
    Snap listed() {
      if (providerHeld == null) {
        providerHeld = new HashMap<>();
      }
      return this;
    }

    GroupSnapshot build() {
      return new GroupSnapshot("g", busy, planned, serviceable == null ? planned : serviceable,
          TableCounts.pendingOnly(pendingTables), instances, outcomes, Optional.ofNullable(providerHeld));
    }
  }

  /** Feeds rounds to the core, carrying the state along; {@link #cfg} may change between rounds. */
  static final class Keeper {
    GroupConfig cfg;
    KeeperState state = KeeperState.initial();
    ScaleDecision last;

    Keeper(GroupConfig cfg) {
      this.cfg = cfg;
    }

    ScaleDecision round(GroupSnapshot s, long nowMs) {
      last = ScaleDecider.decide(s, state, cfg, nowMs);
      state = last.state();
      return last;
    }

    int add(GroupSnapshot s, long nowMs) {
      return round(s, nowMs).instancesRequested();
    }
  }
}
