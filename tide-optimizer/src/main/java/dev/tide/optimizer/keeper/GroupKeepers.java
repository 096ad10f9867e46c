package dev.tide.optimizer.keeper;

import dev.tide.common.time.Clock;
import dev.tide.optimizer.dra.GroupMetrics;
import dev.tide.optimizer.dra.GroupSnapshot;
import dev.tide.optimizer.dra.InstanceView;
import dev.tide.optimizer.dra.KeeperState;
import dev.tide.optimizer.dra.PendingRequest;
import dev.tide.optimizer.dra.ProviderOutcome;
import dev.tide.optimizer.dra.ScaleDecider;
import dev.tide.optimizer.dra.ScaleDecision;
import dev.tide.optimizer.dra.TableCounts;
import dev.tide.optimizer.dra.Terms;
import dev.tide.optimizer.group.GroupConfig;
import dev.tide.optimizer.group.GroupDefinition;
import dev.tide.optimizer.provider.LaunchSpec;
import dev.tide.optimizer.provider.ResourceProvider;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import java.lang.reflect.Method;
import java.lang.reflect.RecordComponent;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.ToDoubleFunction;

/**
 * The optimizer groups of a meta and their scale keepers (spec 8–20): group CRUD with validation,
 * persistence through a {@link GroupStore}, and one {@link GroupKeeper} per group whose rounds run on
 * the injected scheduler.
 *
 * <p>A group's keeper evaluates at the deadline its last decision returned
 * ({@link ScaleDecision#nextEvaluationMs}), at least every {@link #SAFETY_ROUND_INTERVAL} (so a missed
 * workload event cannot stall a group), and whenever something can change the decision: an event of
 * the {@link GroupLoadSource} (coalesced: at most one pending event round for all groups) or a
 * configuration change of the group. Groups are picked up on {@link #start()} (startup load), on {@link #create} and on
 * {@link #update} (enabling DRA at runtime). A group without DRA gets floor-only rounds
 * ({@link ScaleDecider}): topped up to {@code min-parallelism}, never scaled down, its booting requests,
 * releases and drains finished. Disabling DRA keeps exactly that unfinished work
 * ({@link KeeperState#whenDisabled()}); deleting drops all of the group's state, so a group recreated
 * under the same name starts afresh. A stored group whose configuration no longer validates (or whose
 * provider this meta lacks) is treated as disabled and reported by the {@code config-invalid} gauge.
 *
 * <p>Reconciliation: on a group's first round and then at most every {@link #SAFETY_ROUND_INTERVAL},
 * the round lists what the provider holds for the group: records of resources it no longer holds are
 * deleted, and the decision core forgets them or counts unknown ones as booting. Stored records are
 * loaded as booting with one boot deadline from the restart, so instances have time to re-register.
 *
 * <p>Time: the keeper's clock is monotonic ({@link Clock#nanoTime}), in milliseconds anchored at the
 * wall time these keepers were built, so deadlines ignore wall-clock steps while times stay close to
 * wall time (and resource ids, made from them, unique across restarts). Wall times are what leaves
 * the keeper: resource records, views, actions.
 *
 * <p>Refusals ({@link IllegalArgumentException} for bad input, {@link IllegalStateException} for a
 * request that does not fit the current groups) name the property, the value and the rule, and change
 * nothing.
 *
 * <p>Only the leader meta should {@link #start()} this. Thread-safety: every method and every round
 * runs under this object's lock; the load source's listener only submits a task.
 */
public final class GroupKeepers implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(GroupKeepers.class);
  /** Actions a group's view keeps. */
  static final int RECENT_ACTIONS = 16;
  /** The longest a kept group goes without a round, and how often its resources are reconciled with the provider. */
  public static final Duration SAFETY_ROUND_INTERVAL = Duration.ofMinutes(1);

  /** Accessors of {@link GroupMetrics}' components after {@code group}, in {@link GroupMetrics#NAMES} order. */
  private static final List<Method> METRIC_ACCESSORS = Arrays.stream(GroupMetrics.class.getRecordComponents())
      .skip(1).map(RecordComponent::getAccessor).toList();

  private final Clock clock;
  private final long anchorWallMs;
  private final long anchorNanos;
  private final ScheduledExecutorService scheduler;
  private final GroupLoadSource load;
  private final GroupStore store;
  private final SortedMap<String, ResourceProvider> providers;
  private final Terms terms;
  private final SortedMap<String, GroupKeeper> keepers = new TreeMap<>();
  private final AtomicBoolean eventPending = new AtomicBoolean();
  private MeterRegistry meters;
  private boolean started;
  private boolean closed;

  /**
   * @param clock read once per round and per operation (its monotonic reading for deadlines)
   * @param scheduler runs the rounds; a single thread is enough
   * @param load the optimizing workload
   * @param store where groups and resource records persist
   * @param providers resource providers by {@link ResourceProvider#name()}
   */
  public GroupKeepers(Clock clock, ScheduledExecutorService scheduler, GroupLoadSource load, GroupStore store,
      Map<String, ResourceProvider> providers) {
    this(clock, scheduler, load, store, providers, Terms.OPTIMIZER);
  }

  /** As the other constructor, for a pool whose decisions are told in {@code terms} (the compute pool's nodes and slots). */
  public GroupKeepers(Clock clock, ScheduledExecutorService scheduler, GroupLoadSource load, GroupStore store,
      Map<String, ResourceProvider> providers, Terms terms) {
    this.terms = Objects.requireNonNull(terms, "terms");
    this.clock = Objects.requireNonNull(clock, "clock");
    this.anchorWallMs = clock.nowMillis();
    this.anchorNanos = clock.nanoTime();
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

  /** One reading of both clocks: keeper (monotonic) time for deadlines, wall time for what is shown and stored. */
  private record Now(long keeperMs, long wallMs) {
    long toWall(long keeperTimeMs) {
      return wallMs + (keeperTimeMs - keeperMs);
    }

    long toKeeper(long wallTimeMs) {
      return keeperMs - (wallMs - wallTimeMs);
    }
  }

  private Now now() {
    return new Now(keeperMillis(), clock.nowMillis());
  }

  private long keeperMillis() {
    return anchorWallMs + (clock.nanoTime() - anchorNanos) / 1_000_000;
  }

  /** Loads the stored groups and their resource records, picks up the groups to keep and starts listening to the load source. */
  public synchronized void start() {
    if (started) {
      return;
    }
    started = true;
    Now t = now();
    Map<String, List<ResourceRecord>> records = new TreeMap<>();
    for (ResourceRecord r : store.resources()) {
      records.computeIfAbsent(r.group(), g -> new ArrayList<>()).add(r);
    }
    for (GroupDefinition def : store.groups()) {
      GroupConfig.Loaded loaded = loadStored(def);
      loaded.invalidReason().ifPresent(reason ->
          LOG.warn("optimizer group {}: stored configuration is invalid, dynamic allocation treated as disabled: {}", def.name(), reason));
      List<ResourceRecord> stored = records.getOrDefault(def.name(), List.of());
      GroupKeeper k = new GroupKeeper(def, loaded, restoredState(stored, loaded.config(), t));
      stored.forEach(r -> k.records.put(r.resourceId(), r));
      k.restoreActions();
      keepers.put(def.name(), k);
      k.registerMeters();
      if (k.keeping()) {
        k.wake(t.keeperMs());
      }
    }
    load.addListener(this::onLoadEvent);
    LOG.info("groups loaded: {}", keepers.keySet());
  }

  /**
   * A keeper state that counts the stored resources as booting (spec 11), each with one boot deadline
   * from now: a restart interrupted their registration (or re-registration), and the first round's
   * reconciliation forgets those the provider no longer holds.
   */
  private static KeeperState restoredState(List<ResourceRecord> records, GroupConfig config, Now t) {
    List<PendingRequest> pending = new ArrayList<>();
    for (ResourceRecord r : records) {
      long requestedAt = Math.min(t.keeperMs(), t.toKeeper(r.requestedAtMs()));
      pending.add(new PendingRequest(r.resourceId(), r.threads(), requestedAt, t.keeperMs() + config.bootDeadline().toMillis()));
    }
    return KeeperState.booting(pending, records.size());
  }

  private GroupConfig.Loaded loadStored(GroupDefinition def) {
    ResourceProvider provider = providers.get(def.provider());
    if (provider == null) {
      GroupConfig.Loaded l = GroupConfig.loadStored(Map.of(), def.provider(), List.of());
      return new GroupConfig.Loaded(l.config(), Optional.of("resource provider '" + def.provider()
          + "' is not available in this meta (available: " + providers.keySet() + ")"));
    }
    return GroupConfig.loadStored(def.properties(), def.provider(), provider.groupOptions());
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
    Now t = now();
    if (k.keeping()) {
      k.wake(t.keeperMs());
    }
    return k.view(t);
  }

  /**
   * Sets and removes properties of a group (its provider cannot change); refused, changing nothing,
   * when the result does not validate. The change applies from the group's next round, which runs at
   * once. Enabling DRA picks the group up; disabling keeps only the work the keeper still owes the
   * provider (booting requests, releases, drains), which floor-only rounds finish.
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
    Now t = now();
    LOG.info("optimizer group {} updated: {}", name, config);
    if (wasEnabled && !config.draEnabled()) {
      LOG.info("optimizer group {}: dynamic allocation disabled; booting requests, releases and drains are finished", name);
    }
    if (k.keeping()) {
      k.wake(t.keeperMs());
    }
    return k.view(t);
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
    SortedSet<String> resources = k.knownResources();
    store.deleteGroup(name);
    keepers.remove(name);
    k.stop();
    k.removeMeters();
    ResourceProvider provider = providers.get(k.definition().provider());
    if (provider != null) {
      for (String resourceId : resources) {
        try {
          provider.release(resourceId);
        } catch (RuntimeException e) {
          LOG.warn("optimizer group {} deleted, but releasing its resource {} failed: {}", name, resourceId, e.getMessage());
        }
      }
    }
    LOG.info("optimizer group {} deleted; {} resource(s) released", name, resources.size());
    return true;
  }

  /** Every group, sorted by name. */
  public synchronized List<GroupView> list() {
    Now t = now();
    return keepers.values().stream().map(k -> k.view(t)).toList();
  }

  /** One group, if it exists. */
  public synchronized Optional<GroupView> show(String name) {
    Now t = now();
    return Optional.ofNullable(keepers.get(name)).map(k -> k.view(t));
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
      config = GroupConfig.parse(def.properties(), def.provider(), provider.groupOptions());
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
      if (k.keeping()) {
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
    /** Outcomes of the provider calls of the last round, for the next snapshot. */
    private final SortedMap<String, ProviderOutcome> outcomes = new TreeMap<>();
    /** The group's resource records (those whose write failed too), by resource id. */
    final SortedMap<String, ResourceRecord> records = new TreeMap<>();
    private ScheduledFuture<?> next;
    private long nextAtMs = ScaleDecision.NO_DEADLINE;
    /** Identifies the live scheduled round: a round that fired while being replaced sees a newer one and does nothing. */
    private long scheduleSeq;
    /** When the provider is listed next (reconciliation); at once for a group just picked up. */
    private long nextListingMs = Long.MIN_VALUE;
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

    String name() {
      return definition.name();
    }

    /**
     * Whether rounds are scheduled for the group: its provider can launch, and DRA is on, or a floor is
     * set (the floor-only keeper), or requests, releases or drains are still unsettled.
     */
    boolean keeping() {
      ResourceProvider p = providers.get(definition.provider());
      return p != null && p.supportsDynamicAllocation()
          && (config().draEnabled() || !loaded.invalid() && config().minParallelism() > 0 || state.hasProviderWork());
    }

    List<ResourceRecord> resources() {
      return List.copyOf(records.values());
    }

    /** Every resource the group may hold: its records, and the requests and releases of its state (some have no record). */
    SortedSet<String> knownResources() {
      SortedSet<String> ids = new TreeSet<>(records.keySet());
      state.pendingRequests().forEach(p -> ids.add(p.resourceId()));
      state.releases().forEach(r -> ids.add(r.resourceId()));
      return ids;
    }

    void reconfigure(GroupDefinition def, GroupConfig config) {
      boolean wasEnabled = loaded.config().draEnabled();
      definition = def;
      loaded = new GroupConfig.Loaded(config, Optional.empty());
      if (wasEnabled && !config.draEnabled()) {
        state = state.whenDisabled();
      }
      cancel();
    }

    /** Makes sure a round runs no later than {@code atMs} (keeper time). */
    void wake(long atMs) {
      if (stopped || atMs == ScaleDecision.NO_DEADLINE || (next != null && nextAtMs <= atMs)) {
        return;
      }
      cancel();
      nextAtMs = atMs;
      long delayMs = Math.max(0, atMs - keeperMillis());
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
        if (keeping()) {
          round();
        }
      }
    }

    /** One round; a failure is logged and the round retried one sustained interval later. */
    void round() {
      Now t = now();
      try {
        evaluate(t);
      } catch (RuntimeException e) {
        LOG.error("optimizer group {}: scale round failed; retrying in {}", name(), config().sustainedBacklogTimeout(), e);
        wake(t.keeperMs() + config().sustainedBacklogTimeout().toMillis());
      }
    }

    /**
     * One round (spec 9): snapshot (with the provider's list when reconciliation is due) → decide →
     * realize (removals and releases, the drain, requests; resource records) → schedule.
     */
    private void evaluate(Now t) {
      ResourceProvider provider = providers.get(definition.provider());
      Optional<Map<String, Integer>> held = Optional.empty();
      if (t.keeperMs() >= nextListingMs) {
        nextListingMs = t.keeperMs() + SAFETY_ROUND_INTERVAL.toMillis();
        held = listHeld(provider);
      }
      GroupSnapshot snap;
      try {
        List<InstanceView> instances = load.instances(name()).stream()
            .map(i -> i.lastTaskMs() == Long.MIN_VALUE ? i : i.withLastTaskAt(t.toKeeper(i.lastTaskMs()))).toList();
        snap = GroupSnapshot.of(name(), load.load(name()), instances, outcomes, held);
      } catch (RuntimeException e) {
        LOG.warn("optimizer group {}: snapshot failed, retrying at the sustained interval: {}", name(), e.toString());
        wake(t.keeperMs() + config().sustainedBacklogTimeout().toMillis());
        return;
      }
      outcomes.clear();
      ScaleDecision d = ScaleDecider.decide(snap, state, config(), terms, t.keeperMs());
      for (var r : d.removals()) {
        act(t, r.reason());
        release(provider, r.resourceId(), "instance " + r.instanceId());
      }
      for (var r : d.releases()) {
        act(t, r.reason());
        release(provider, r.resourceId(), "expired request");
      }
      d.drain().ifPresent(drain -> {
        act(t, drain.reason());
        load.drain(name(), drain.instanceId());
      });
      d.scaleUp().ifPresent(up -> {
        act(t, up.reason());
        for (String id : up.resourceIds()) {
          outcomes.put(id, request(provider, id, up.threadsPerInstance(), t));
        }
      });
      for (var w : d.warnings()) {
        LOG.warn("group {}: {}", name(), w.message());
      }
      state = d.state();
      lastDecision = d.summary();
      if (d.noChange()) {
        LOG.debug("group {}: {}; next evaluation {}", name(), lastDecision, describeNext(d, t));
      } else {
        LOG.info("group {}: next evaluation {}", name(), describeNext(d, t));
      }
      if (keeping()) {
        wake(Math.min(d.nextEvaluationMs(), nextListingMs)); // the safety round, with its listing, at the latest
      }
    }

    /**
     * What the provider holds for the group, and the records of what it no longer holds deleted; empty
     * (reconciliation skipped until the next listing) when the provider cannot tell.
     */
    private Optional<Map<String, Integer>> listHeld(ResourceProvider provider) {
      Map<String, Integer> held = new TreeMap<>();
      try {
        for (LaunchSpec s : provider.list()) {
          if (s.group().equals(name())) {
            held.put(s.resourceId(), s.threads());
          }
        }
      } catch (RuntimeException e) {
        LOG.warn("optimizer group {}: listing provider {} failed, reconciliation skipped until the next safety round: {}", name(),
            provider.name(), e.getMessage());
        return Optional.empty();
      }
      for (String resourceId : new ArrayList<>(records.keySet())) {
        if (!held.containsKey(resourceId)) {
          LOG.info("group {}: provider {} no longer holds {}; its record is deleted", name(), provider.name(), resourceId);
          deleteRecord(resourceId);
        }
      }
      return Optional.of(held);
    }

    /** Logs an action and keeps it in the group's recent actions, and in the store. */
    private void act(Now t, String reason) {
      LOG.info("group {}: {}", name(), reason);
      KeeperAction a = new KeeperAction(t.wallMs(), reason);
      keep(a);
      try {
        store.putAction(name(), a);
      } catch (RuntimeException e) {
        LOG.warn("group {}: the action was not stored (it is kept in memory): {}", name(), e.getMessage());
      }
    }

    private void keep(KeeperAction a) {
      actions.addLast(a);
      while (actions.size() > RECENT_ACTIONS) {
        actions.removeFirst();
      }
    }

    /** The actions a previous meta stored, so that a restart keeps showing them. */
    void restoreActions() {
      try {
        store.actions(name()).forEach(this::keep);
      } catch (RuntimeException e) {
        LOG.warn("group {}: stored actions not loaded: {}", name(), e.getMessage());
      }
    }

    private String describeNext(ScaleDecision d, Now t) {
      return d.nextEvaluationMs() == ScaleDecision.NO_DEADLINE ? "on the next event" : "in " + (d.nextEvaluationMs() - t.keeperMs())
          + "ms (" + d.nextEvaluationReason() + ")";
    }

    private ProviderOutcome request(ResourceProvider provider, String resourceId, int threads, Now t) {
      try {
        provider.request(LaunchSpec.of(name(), resourceId, threads, definition.properties()));
      } catch (RuntimeException e) {
        LOG.warn("group {}: request of {} failed, its demand is retried on a later round: {}", name(), resourceId, e.getMessage());
        return ProviderOutcome.REQUEST_FAILED;
      }
      ResourceRecord rec = new ResourceRecord(resourceId, name(), threads, t.wallMs());
      records.put(resourceId, rec);
      try {
        store.putResource(rec);
        return ProviderOutcome.LAUNCHED;
      } catch (RuntimeException e) {
        LOG.warn("group {}: {} launched but its record was not persisted (kept in the boot window): {}", name(), resourceId, e.getMessage());
        return ProviderOutcome.LAUNCHED_UNPERSISTED;
      }
    }

    /** Releases {@code resourceId} and deletes its record; the outcome goes into the next snapshot. */
    private void release(ResourceProvider provider, String resourceId, String what) {
      try {
        provider.release(resourceId);
      } catch (RuntimeException e) {
        LOG.warn("group {}: release of {} ({}) failed; it still counts against max-parallelism and is retried: {}", name(),
            resourceId, what, e.getMessage());
        outcomes.put(resourceId, ProviderOutcome.RELEASE_FAILED);
        return;
      }
      outcomes.put(resourceId, ProviderOutcome.RELEASED);
      deleteRecord(resourceId);
    }

    private void deleteRecord(String resourceId) {
      if (records.remove(resourceId) == null) {
        return;
      }
      try {
        store.deleteResource(resourceId);
      } catch (RuntimeException e) {
        LOG.warn("group {}: the record of {} was not deleted (the next reconciliation retries): {}", name(), resourceId, e.getMessage());
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
        long now = keeperMillis();
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
      if (!outcomes.containsValue(ProviderOutcome.REQUEST_FAILED)) {
        return state;
      }
      return state.withPendingRequests(state.pendingRequests().stream()
          .filter(p -> outcomes.get(p.resourceId()) != ProviderOutcome.REQUEST_FAILED).toList());
    }

    GroupView view(Now t) {
      return new GroupView(definition, config(), config().draEnabled(), loaded.invalidReason(), metrics(t.keeperMs()), lastDecision,
          List.copyOf(actions), next == null ? OptionalLong.empty() : OptionalLong.of(t.toWall(nextAtMs)), resources(), t.wallMs());
    }

    private GroupMetrics metrics(long now) {
      GroupMetrics metrics;
      try {
        GroupSnapshot snap = GroupSnapshot.of(name(), load.load(name()), load.instances(name()), Map.of(), Optional.empty());
        metrics = GroupMetrics.of(snap, withoutFailedRequests(), loaded.invalid(), now);
      } catch (RuntimeException e) {
        metrics = GroupMetrics.of(new GroupSnapshot(name(), 0, 0, 0, TableCounts.NONE, List.of(), Map.of(), Optional.empty()),
            state, loaded.invalid(), now);
      }
      return metrics;
    }
  }
}
