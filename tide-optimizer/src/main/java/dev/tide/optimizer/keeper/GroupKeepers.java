package dev.tide.optimizer.keeper;

import dev.tide.common.time.Clock;
import dev.tide.optimizer.dra.GroupMetrics;
import dev.tide.optimizer.dra.GroupSnapshot;
import dev.tide.optimizer.dra.KeeperState;
import dev.tide.optimizer.dra.PendingRequest;
import dev.tide.optimizer.dra.PlanningBound;
import dev.tide.optimizer.dra.RequestOutcome;
import dev.tide.optimizer.dra.ScaleDecider;
import dev.tide.optimizer.dra.ScaleDecision;
import dev.tide.optimizer.dra.TableCounts;
import dev.tide.optimizer.group.GroupConfig;
import dev.tide.optimizer.group.GroupDefinition;
import dev.tide.optimizer.provider.LaunchSpec;
import dev.tide.optimizer.provider.ResourceProvider;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import java.lang.reflect.Method;
import java.lang.reflect.RecordComponent;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.ToDoubleFunction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The optimizer groups of a meta and their scale keepers (spec 8–20): group CRUD with validation,
 * persistence through a {@link GroupStore}, and one {@link GroupKeeper} per group whose rounds run on
 * the injected scheduler.
 *
 * <p>A DRA group's keeper evaluates at the deadline its last decision returned
 * ({@link ScaleDecision#nextEvaluationMs}) and whenever something can change the decision: an event of
 * the {@link GroupLoadSource} (coalesced: at most one pending event round for all groups) or a
 * configuration change of the group. Groups are picked up on {@link #start()} (startup load), on
 * {@link #create} and on {@link #update} (enabling DRA at runtime). Disabling DRA keeps only the
 * boot-window accounting ({@link KeeperState#retainBootWindow()}); deleting drops all of the group's
 * state, so a group recreated under the same name starts afresh. A stored group whose configuration no
 * longer validates (or whose provider this meta lacks) is treated as disabled and reported by the
 * {@code config-invalid} gauge.
 *
 * <p>Refusals ({@link IllegalArgumentException} for bad input, {@link IllegalStateException} for a
 * request that does not fit the current groups) name the property, the value and the rule, and change
 * nothing. A group without DRA whose provider can launch instances gets the slow floor-only keeper
 * ({@link FloorKeeper}): checked every minute and topped up to {@code min-parallelism}, never scaled down;
 * the DRA keeper takes over when DRA is enabled, and hands back when it is disabled.
 *
 * <p>Only the leader meta should {@link #start()} this. Thread-safety: every method and every round
 * runs under this object's lock; the load source's listener only submits a task.
 */
public final class GroupKeepers implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(GroupKeepers.class);
  /** Actions a group's view keeps. */
  static final int RECENT_ACTIONS = 16;

  /** Accessors of {@link GroupMetrics}' components after {@code group}, in {@link GroupMetrics#NAMES} order. */
  private static final List<Method> METRIC_ACCESSORS = Arrays.stream(GroupMetrics.class.getRecordComponents())
      .skip(1).map(RecordComponent::getAccessor).toList();

  private final Clock clock;
  private final ScheduledExecutorService scheduler;
  private final GroupLoadSource load;
  private final GroupStore store;
  private final SortedMap<String, ResourceProvider> providers;
  private final SortedMap<String, GroupKeeper> keepers = new TreeMap<>();
  private final AtomicBoolean eventPending = new AtomicBoolean();
  private MeterRegistry meters;
  private boolean started;
  private boolean closed;

  /**
   * @param clock read once per round and per operation
   * @param scheduler runs the rounds; a single thread is enough
   * @param load the optimizing workload
   * @param store where groups and resource records persist
   * @param providers resource providers by {@link ResourceProvider#name()}
   */
  public GroupKeepers(Clock clock, ScheduledExecutorService scheduler, GroupLoadSource load, GroupStore store,
      Map<String, ResourceProvider> providers) {
    this.clock = Objects.requireNonNull(clock, "clock");
    this.scheduler = Objects.requireNonNull(scheduler, "scheduler");
    this.load = Objects.requireNonNull(load, "load");
    this.store = Objects.requireNonNull(store, "store");
    this.providers = new TreeMap<>(providers);
    for (Map.Entry<String, ResourceProvider> e : this.providers.entrySet()) {
      if (!e.getKey().equals(e.getValue().name())) {
        throw new IllegalArgumentException("provider registered as '" + e.getKey() + "' names itself '" + e.getValue().name() + "'");
      }
    }
  }

  /** Loads the stored groups and their resource records, picks up DRA groups and starts listening to the load source. */
  public synchronized void start() {
    if (started) {
      return;
    }
    started = true;
    long now = clock.nowMillis();
    Map<String, List<ResourceRecord>> records = new TreeMap<>();
    for (ResourceRecord r : store.resources()) {
      records.computeIfAbsent(r.group(), g -> new ArrayList<>()).add(r);
    }
    for (GroupDefinition def : store.groups()) {
      GroupConfig.Loaded loaded = loadStored(def);
      loaded.invalidReason().ifPresent(reason ->
          LOG.warn("optimizer group {}: stored configuration is invalid, dynamic allocation treated as disabled: {}", def.name(), reason));
      GroupKeeper k = new GroupKeeper(def, loaded, restoredState(records.getOrDefault(def.name(), List.of()), loaded.config()));
      keepers.put(def.name(), k);
      k.registerMeters();
      if (k.keeping()) {
        k.wake(now);
      }
    }
    load.addListener(this::onLoadEvent);
    LOG.info("optimizer groups loaded: {}", keepers.keySet());
  }

  /** A keeper state that counts the stored, not yet registered requests as booting (spec 11). */
  private static KeeperState restoredState(List<ResourceRecord> records, GroupConfig config) {
    List<PendingRequest> pending = new ArrayList<>();
    for (ResourceRecord r : records) {
      long deadline = r.requestedAtMs() + config.bootDeadline().toMillis();
      pending.add(new PendingRequest(r.resourceId(), r.threads(), r.requestedAtMs(), Math.max(r.requestedAtMs(), deadline)));
    }
    return new KeeperState(Optional.empty(), 1, OptionalLong.empty(), OptionalLong.empty(), PlanningBound.NONE, Map.of(), Map.of(),
        pending, records.size(), 0, 0);
  }

  private GroupConfig.Loaded loadStored(GroupDefinition def) {
    if (!providers.containsKey(def.provider())) {
      GroupConfig.Loaded l = GroupConfig.loadStored(Map.of(), def.provider());
      return new GroupConfig.Loaded(l.config(), Optional.of("resource provider '" + def.provider()
          + "' is not available in this meta (available: " + providers.keySet() + ")"));
    }
    return GroupConfig.loadStored(def.properties(), def.provider());
  }

  /**
   * Publishes every group's {@link GroupMetrics} (spec 20) in {@code registry}: gauges
   * {@code tide.optimizer.group.<name>} and function counters for {@code scale-up-rounds} and
   * {@code scale-down-starts}, tagged {@code group}; groups created later are added, deleted ones
   * removed. Values are at most {@link #METRICS_MAX_AGE_MS} old.
   */
  public synchronized void bindMetrics(MeterRegistry registry) {
    if (meters != null) {
      throw new IllegalStateException("the optimizer-group metrics are already bound to a registry");
    }
    meters = Objects.requireNonNull(registry, "registry");
    keepers.values().forEach(GroupKeeper::registerMeters);
  }

  /** How old the values a metric read returns may be: a scrape reads every metric of a group from one snapshot. */
  public static final long METRICS_MAX_AGE_MS = 1000;

  /** Meter name of a {@link GroupMetrics#NAMES} entry. */
  public static String meterName(String metric) {
    return "tide.optimizer.group." + metric;
  }

  // ---------------------------------------------------------------- CRUD

  /** Creates a group; refused when the name is taken or the definition does not validate. */
  public synchronized GroupView create(GroupDefinition def) {
    String op = "create of optimizer group '" + def.name() + "'";
    checkOpen(op);
    GroupDefinition.checkName(op, def.name());
    if (keepers.containsKey(def.name())) {
      throw new IllegalStateException(op + " refused: the group exists; update it, or delete it first");
    }
    GroupConfig config = validate(op, def);
    store.putGroup(def);
    GroupKeeper k = new GroupKeeper(def, new GroupConfig.Loaded(config, Optional.empty()), KeeperState.initial());
    keepers.put(def.name(), k);
    k.registerMeters();
    LOG.info("optimizer group {} created on provider {}: {}", def.name(), def.provider(), config);
    if (k.keeping()) {
      k.wake(clock.nowMillis());
    }
    return k.view(clock.nowMillis());
  }

  /**
   * Sets and removes properties of a group (its provider cannot change); refused, changing nothing,
   * when the result does not validate. Enabling DRA picks the group up; disabling keeps only its
   * boot-window accounting.
   */
  public synchronized GroupView update(String name, Map<String, String> set, Collection<String> unset) {
    String op = "update of optimizer group '" + name + "'";
    checkOpen(op);
    GroupKeeper k = existing(op, name);
    TreeMap<String, String> props = new TreeMap<>(k.definition().properties());
    for (String key : unset) {
      props.remove(key);
    }
    props.putAll(set);
    GroupDefinition def = k.definition().withProperties(props);
    GroupConfig config = validate(op, def);
    store.putGroup(def);
    boolean wasEnabled = k.config().draEnabled();
    k.reconfigure(def, config);
    long now = clock.nowMillis();
    LOG.info("optimizer group {} updated: {}", name, config);
    if (wasEnabled && !config.draEnabled()) {
      LOG.info("optimizer group {}: dynamic allocation disabled; boot-window accounting kept", name);
    }
    if (k.keeping()) {
      k.wake(now);
    }
    return k.view(now);
  }

  /**
   * Deletes a group: its keeper stops, its state is dropped, and the resources it launched are released.
   * Refused while tables are assigned to it.
   */
  public synchronized boolean delete(String name) {
    String op = "delete of optimizer group '" + name + "'";
    checkOpen(op);
    GroupKeeper k = keepers.get(name);
    if (k == null) {
      return false;
    }
    int tables = load.tables(name).size();
    if (tables > 0) {
      throw new IllegalStateException(op + " refused: " + tables + (tables == 1 ? " table is" : " tables are")
          + " assigned to it; assign them to another group first");
    }
    List<ResourceRecord> records = k.resources();
    store.deleteGroup(name);
    keepers.remove(name);
    k.stop();
    k.removeMeters();
    ResourceProvider provider = providers.get(k.definition().provider());
    if (provider != null) {
      for (ResourceRecord r : records) {
        try {
          provider.release(r.resourceId());
        } catch (RuntimeException e) {
          LOG.warn("optimizer group {} deleted, but releasing its resource {} failed: {}", name, r.resourceId(), e.getMessage());
        }
      }
    }
    LOG.info("optimizer group {} deleted; {} resource(s) released", name, records.size());
    return true;
  }

  /** Every group, sorted by name. */
  public synchronized List<GroupView> list() {
    long now = clock.nowMillis();
    return keepers.values().stream().map(k -> k.view(now)).toList();
  }

  /** One group, if it exists. */
  public synchronized Optional<GroupView> show(String name) {
    return Optional.ofNullable(keepers.get(name)).map(k -> k.view(clock.nowMillis()));
  }

  /** The names of the resource providers groups may use. */
  public List<String> providers() {
    return List.copyOf(providers.keySet());
  }

  /** Stops all keepers; launched resources stay (the providers' own close stops in-JVM ones). Idempotent. */
  @Override
  public synchronized void close() {
    closed = true;
    for (GroupKeeper k : keepers.values()) {
      k.stop();
    }
  }

  private void checkOpen(String op) {
    if (closed || !started) {
      throw new IllegalStateException(op + " refused: the optimizer-group service is " + (closed ? "closed" : "not started"));
    }
  }

  private GroupKeeper existing(String op, String name) {
    GroupKeeper k = keepers.get(name);
    if (k == null) {
      throw new IllegalArgumentException(op + " refused: no optimizer group '" + name + "' (groups: " + keepers.keySet() + ")");
    }
    return k;
  }

  private GroupConfig validate(String op, GroupDefinition def) {
    ResourceProvider provider = providers.get(def.provider());
    if (provider == null) {
      throw new IllegalArgumentException(op + " refused: invalid value '" + def.provider() + "' for the resource provider: must be one of "
          + providers.keySet());
    }
    GroupConfig config;
    try {
      provider.validate(def.properties());
      config = GroupConfig.parse(def.properties(), def.provider());
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(op + " refused: " + e.getMessage(), e);
    }
    if (config.draEnabled() && !provider.supportsDynamicAllocation()) {
      throw new IllegalArgumentException(op + " refused: invalid value 'true' for option '" + GroupConfig.ENABLED.key()
          + "': must be false on provider '" + def.provider() + "', whose optimizers are started by hand");
    }
    return config;
  }

  // ---------------------------------------------------------------- events

  /** Load-source listener: any thread, must not block; coalesces into one event round for all groups. */
  private void onLoadEvent() {
    if (eventPending.compareAndSet(false, true)) {
      try {
        scheduler.execute(this::eventRound);
      } catch (RejectedExecutionException e) {
        eventPending.set(false); // shutting down
      }
    }
  }

  private synchronized void eventRound() {
    eventPending.set(false);
    if (closed) {
      return;
    }
    for (GroupKeeper k : new ArrayList<>(keepers.values())) {
      if (k.config().draEnabled()) {
        k.round();
      }
    }
  }

  // ---------------------------------------------------------------- one group

  /** The keeper of one group: its state between rounds and its next scheduled round. Guarded by the outer lock. */
  private final class GroupKeeper {
    private GroupDefinition definition;
    private GroupConfig.Loaded loaded;
    private KeeperState state;
    private final SortedMap<String, RequestOutcome> outcomes = new TreeMap<>();
    private final SortedMap<String, ResourceRecord> records = new TreeMap<>();
    /** Resources released whose instance has not left yet (it expires, or unregisters as it stops). */
    private final Set<String> released = new TreeSet<>();
    private ScheduledFuture<?> next;
    private long nextAtMs = ScaleDecision.NO_DEADLINE;
    /** Identifies the live scheduled round: a round that fired while being replaced sees a newer one and does nothing. */
    private long scheduleSeq;
    private String lastDecision = "";
    /** The latest actions, oldest first, at most {@link #RECENT_ACTIONS}. */
    private final ArrayDeque<KeeperAction> actions = new ArrayDeque<>();
    private boolean stopped;
    private final List<Meter> registered = new ArrayList<>();
    private GroupMetrics cachedMetrics;
    private long cachedAtMs = Long.MIN_VALUE;

    GroupKeeper(GroupDefinition definition, GroupConfig.Loaded loaded, KeeperState state) {
      this.definition = definition;
      this.loaded = loaded;
      this.state = state;
    }

    GroupDefinition definition() {
      return definition;
    }

    GroupConfig config() {
      return loaded.config();
    }

    /** Whether the floor-only keeper watches the group: DRA off, a floor set, and a provider that can launch. */
    boolean floorDuty() {
      ResourceProvider p = providers.get(definition.provider());
      return !config().draEnabled() && !loaded.invalid() && config().minParallelism() > 0 && p != null && p.supportsDynamicAllocation();
    }

    /** Whether rounds are scheduled for the group at all. */
    boolean keeping() {
      return config().draEnabled() || floorDuty();
    }

    String name() {
      return definition.name();
    }

    List<ResourceRecord> resources() {
      List<ResourceRecord> all = new ArrayList<>(records.values());
      for (ResourceRecord r : store.resources()) {
        if (r.group().equals(name()) && !records.containsKey(r.resourceId())) {
          all.add(r);
        }
      }
      return all;
    }

    void reconfigure(GroupDefinition def, GroupConfig config) {
      boolean wasEnabled = loaded.config().draEnabled();
      definition = def;
      loaded = new GroupConfig.Loaded(config, Optional.empty());
      if (wasEnabled && !config.draEnabled()) {
        state = state.retainBootWindow();
      }
      cancel();
    }

    /** Makes sure a round runs no later than {@code atMs}. */
    void wake(long atMs) {
      if (stopped || atMs == ScaleDecision.NO_DEADLINE || (next != null && nextAtMs <= atMs)) {
        return;
      }
      cancel();
      nextAtMs = atMs;
      long delayMs = Math.max(0, atMs - clock.nowMillis());
      long seq = ++scheduleSeq;
      next = scheduler.schedule(() -> scheduledRound(seq), delayMs, TimeUnit.MILLISECONDS);
    }

    private void cancel() {
      if (next != null) {
        next.cancel(false);
        next = null;
      }
      scheduleSeq++;
      nextAtMs = ScaleDecision.NO_DEADLINE;
    }

    void stop() {
      stopped = true;
      cancel();
    }

    private void scheduledRound(long seq) {
      synchronized (GroupKeepers.this) {
        if (stopped || closed || seq != scheduleSeq || next == null) {
          return;
        }
        next = null;
        nextAtMs = ScaleDecision.NO_DEADLINE;
        if (config().draEnabled()) {
          round();
        } else if (floorDuty()) {
          floorRound();
        }
      }
    }

    /** One round; a failure is logged and the round retried one sustained interval later. */
    void round() {
      long now = clock.nowMillis();
      try {
        evaluate(now);
      } catch (RuntimeException e) {
        LOG.error("optimizer group {}: scale round failed; retrying in {}", name(), config().sustainedBacklogTimeout(), e);
        wake(now + config().sustainedBacklogTimeout().toMillis());
      }
    }

    /** A check of the floor-only keeper (DRA off): tops the group up to min-parallelism, then looks again a minute later. */
    private void floorRound() {
      long now = clock.nowMillis();
      try {
        GroupSnapshot snap = GroupSnapshot.fromTables(name(), load.tables(name()), load.instances(name()), outcomes);
        outcomes.clear();
        FloorKeeper.Decision d = FloorKeeper.decide(snap, state, config(), now);
        ResourceProvider provider = providers.get(definition.provider());
        d.scaleUp().ifPresent(up -> {
          act(now, up.reason());
          for (String id : up.resourceIds()) {
            outcomes.put(id, request(provider, id, up.threadsPerInstance(), now));
          }
        });
        state = d.state();
        lastDecision = d.reason();
      } catch (RuntimeException e) {
        LOG.error("optimizer group {}: floor check failed; retrying in {}", name(), FloorKeeper.CHECK_INTERVAL, e);
      }
      wake(now + FloorKeeper.CHECK_INTERVAL.toMillis());
    }

    /** One round (spec 9): snapshot → decide → realize (removals, drain, requests; resource records) → schedule. */
    private void evaluate(long now) {
      GroupSnapshot snap;
      try {
        snap = GroupSnapshot.fromTables(name(), load.tables(name()), load.instances(name()), outcomes);
      } catch (RuntimeException e) {
        LOG.warn("optimizer group {}: snapshot failed, retrying at the sustained interval: {}", name(), e.toString());
        wake(now + config().sustainedBacklogTimeout().toMillis());
        return;
      }
      outcomes.clear();
      Set<String> present = new TreeSet<>();
      snap.instances().forEach(i -> i.resourceId().ifPresent(present::add));
      released.retainAll(present);
      ScaleDecision d = ScaleDecider.decide(snap, state, config(), now);
      ResourceProvider provider = providers.get(definition.provider());
      for (var r : d.removals()) {
        act(now, r.reason());
        release(provider, r.instanceId(), r.resourceId());
      }
      d.drain().ifPresent(drain -> {
        act(now, drain.reason());
        load.drain(name(), drain.instanceId());
      });
      d.scaleUp().ifPresent(up -> {
        act(now, up.reason());
        for (String id : up.resourceIds()) {
          outcomes.put(id, request(provider, id, up.threadsPerInstance(), now));
        }
      });
      for (var w : d.warnings()) {
        LOG.warn("group {}: {}", name(), w.message());
      }
      state = d.state();
      lastDecision = d.summary();
      if (d.noChange()) {
        LOG.debug("group {}: {}; next evaluation {}", name(), lastDecision, describeNext(d, now));
      } else {
        LOG.info("group {}: next evaluation {}", name(), describeNext(d, now));
      }
      wake(d.nextEvaluationMs());
    }

    /** Logs an action and keeps it in the group's recent actions. */
    private void act(long now, String reason) {
      LOG.info("group {}: {}", name(), reason);
      actions.addLast(new KeeperAction(now, reason));
      while (actions.size() > RECENT_ACTIONS) {
        actions.removeFirst();
      }
    }

    private String describeNext(ScaleDecision d, long now) {
      return d.nextEvaluationMs() == ScaleDecision.NO_DEADLINE ? "on the next event" : "in " + (d.nextEvaluationMs() - now) + "ms ("
          + d.nextEvaluationReason() + ")";
    }

    private RequestOutcome request(ResourceProvider provider, String resourceId, int threads, long now) {
      try {
        provider.request(LaunchSpec.of(name(), resourceId, threads, definition.properties()));
      } catch (RuntimeException e) {
        LOG.warn("group {}: request of {} failed, its demand is retried on a later round: {}", name(), resourceId, e.getMessage());
        return RequestOutcome.FAILED;
      }
      ResourceRecord rec = new ResourceRecord(resourceId, name(), threads, now);
      records.put(resourceId, rec);
      try {
        store.putResource(rec);
        return RequestOutcome.LAUNCHED;
      } catch (RuntimeException e) {
        LOG.warn("group {}: {} launched but its record was not persisted (kept in the boot window): {}", name(), resourceId, e.getMessage());
        return RequestOutcome.LAUNCHED_UNPERSISTED;
      }
    }

    private void release(ResourceProvider provider, String instanceId, String resourceId) {
      if (resourceId.isEmpty() || released.contains(resourceId)) {
        return;
      }
      try {
        provider.release(resourceId);
      } catch (RuntimeException e) {
        LOG.warn("group {}: release of {} (instance {}) failed; the drain is kept and the removal retried: {}", name(), resourceId,
            instanceId, e.getMessage());
        return;
      }
      records.remove(resourceId);
      released.add(resourceId);
      try {
        store.deleteResource(resourceId);
      } catch (RuntimeException e) {
        LOG.warn("group {}: {} released but its record was not deleted: {}", name(), resourceId, e.getMessage());
      }
    }

    void registerMeters() {
      if (meters == null) {
        return;
      }
      Tags tags = Tags.of("group", name());
      for (int i = 0; i < GroupMetrics.NAMES.size(); i++) {
        String metric = GroupMetrics.NAMES.get(i);
        int index = i;
        ToDoubleFunction<GroupKeeper> value = k -> k.metricValue(index);
        registered.add(metric.equals("scale-up-rounds") || metric.equals("scale-down-starts")
            ? FunctionCounter.builder(meterName(metric), this, value).tags(tags).register(meters)
            : Gauge.builder(meterName(metric), this, value).tags(tags).register(meters));
      }
    }

    void removeMeters() {
      if (meters != null) {
        registered.forEach(meters::remove);
        registered.clear();
      }
    }

    /** Metric {@code index} of {@link GroupMetrics#NAMES}, from a snapshot at most {@link #METRICS_MAX_AGE_MS} old. */
    private double metricValue(int index) {
      synchronized (GroupKeepers.this) {
        long now = clock.nowMillis();
        if (cachedMetrics == null || now - cachedAtMs > METRICS_MAX_AGE_MS) {
          cachedMetrics = metrics(now);
          cachedAtMs = now;
        }
        try {
          return ((Number) METRIC_ACCESSORS.get(index).invoke(cachedMetrics)).doubleValue();
        } catch (ReflectiveOperationException e) {
          throw new IllegalStateException(e);
        }
      }
    }

    /** The state without requests that failed since the last round (the next round drops them): what the gauges count. */
    private KeeperState withoutFailedRequests() {
      if (!outcomes.containsValue(RequestOutcome.FAILED)) {
        return state;
      }
      List<PendingRequest> pending = state.pendingRequests().stream()
          .filter(p -> outcomes.get(p.resourceId()) != RequestOutcome.FAILED).toList();
      return new KeeperState(state.backlog(), state.ramp(), state.lastScaleUpMs(), state.lastScaleDownMs(), state.planningBound(),
          state.lastBusyMs(), state.draining(), pending, state.requestSeq(), state.scaleUpRounds(), state.scaleDownStarts());
    }

    GroupView view(long now) {
      return new GroupView(definition, config().draEnabled(), loaded.invalidReason(), metrics(now), lastDecision, List.copyOf(actions),
          next == null ? OptionalLong.empty() : OptionalLong.of(nextAtMs), resources(), now);
    }

    private GroupMetrics metrics(long now) {
      GroupMetrics metrics;
      try {
        GroupSnapshot snap = GroupSnapshot.fromTables(name(), load.tables(name()), load.instances(name()), Map.of());
        metrics = GroupMetrics.of(snap, withoutFailedRequests(), loaded.invalid(), now);
      } catch (RuntimeException e) {
        metrics = GroupMetrics.of(new GroupSnapshot(name(), 0, 0, 0, TableCounts.NONE, List.of(), Map.of()),
            state, loaded.invalid(), now);
      }
      return metrics;
    }
  }
}
