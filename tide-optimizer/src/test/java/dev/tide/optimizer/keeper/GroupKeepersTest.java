package dev.tide.optimizer.keeper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tide.common.time.Clock;
import dev.tide.common.time.ManualClock;
import dev.tide.optimizer.dra.GroupMetrics;
import dev.tide.optimizer.dra.InstanceView;
import dev.tide.optimizer.group.GroupDefinition;
import dev.tide.optimizer.provider.ExternalProvider;
import dev.tide.optimizer.provider.LaunchSpec;
import dev.tide.optimizer.provider.ResourceProvider;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The keeper shell over a fake workload and a fake provider, on a manual clock and a manual scheduler:
 * every round runs because the shell scheduled it (at a decision's deadline or on an event), never
 * because the test called the decision core.
 */
class GroupKeepersTest {
  static final long T0 = 1_700_000_000_000L;
  static final long S = 1000;
  static final long MIN = 60 * S;
  static final String G = "default";

  ManualClock clock;
  ManualScheduler scheduler;
  FakeLoadSource load;
  FakeProvider provider;
  InMemoryGroupStore store;
  GroupKeepers keepers;

  @BeforeEach
  void setUp() {
    clock = new ManualClock(T0);
    scheduler = new ManualScheduler(clock);
    load = new FakeLoadSource();
    provider = new FakeProvider();
    store = new InMemoryGroupStore();
    keepers = newKeepers();
  }

  private GroupKeepers newKeepers() {
    return newKeepers(clock);
  }

  private GroupKeepers newKeepers(Clock keeperClock) {
    Map<String, ResourceProvider> providers = Map.of(provider.name(), provider, ExternalProvider.NAME, new ExternalProvider());
    GroupKeepers k = new GroupKeepers(keeperClock, scheduler, load, store, providers);
    k.start();
    return k;
  }

  /** DRA on, max 12, K 2, defaults otherwise (backlog 60 s, sustained 30 s, idle 5 min, cooldown 1 min, drain 15 min, boot 3 min). */
  static Map<String, String> dra(String... kv) {
    Map<String, String> m = new HashMap<>(Map.of("dynamic-allocation.enabled", "true", "dynamic-allocation.max-parallelism", "12",
        "dynamic-allocation.executor-parallelism", "2"));
    for (int i = 0; i < kv.length; i += 2) {
      m.put(kv[i], kv[i + 1]);
    }
    return m;
  }

  private void create(Map<String, String> props) {
    keepers.create(GroupDefinition.of(G, provider.name(), props));
    scheduler.runDue();
  }

  private void at(long ms) {
    scheduler.runUntil(ms);
  }

  /** Registers the instance launched for the {@code n}th request. */
  private void registerRequest(int n, int inFlight) {
    String rid = provider.requested.get(n);
    load.register(G, InstanceView.launched("opt-" + rid, 2, inFlight, rid));
  }

  private int effective() {
    return keepers.show(G).orElseThrow().metrics().effectiveThreads();
  }

  @Test
  void firstScaleOutLandsAtExactlyTheBacklogTimeoutThroughTheShellsOwnScheduling() {
    create(dra());
    clock.set(T0 + 10 * S);
    load.load(G, 5, 0); // event: demand begins
    scheduler.runDue();

    at(T0 + 70 * S - 1);
    assertThat(provider.requested).isEmpty();
    at(T0 + 70 * S);
    assertThat(provider.requested).hasSize(1);
    assertThat(store.resources.get(provider.requested.get(0)).requestedAtMs()).isEqualTo(T0 + 70 * S);
    assertThat(keepers.show(G).orElseThrow().lastDecision()).contains("scale-up 1 instance: need 5 threads, ramp 1");

    // Sustained spacing: the ramp doubles to 2 at +30 s (need 5 − 2 requested = 3 → 2 instances).
    at(T0 + 100 * S - 1);
    assertThat(provider.requested).hasSize(1);
    at(T0 + 100 * S);
    assertThat(provider.requested).hasSize(3);
    assertThat(effective()).isEqualTo(6);
  }

  @Test
  void anInstanceThatRegistersLateReplacesItsRequestWithoutCountingTwice() {
    create(dra());
    load.load(G, 2, 0);
    at(T0 + 60 * S);
    assertThat(provider.requested).hasSize(1);
    assertThat(effective()).isEqualTo(2);

    clock.set(T0 + 150 * S); // registers 90 s after the request, well within the boot deadline
    registerRequest(0, 2);
    load.load(G, 0, 2);
    scheduler.runDue();
    assertThat(effective()).isEqualTo(2);
    assertThat(keepers.show(G).orElseThrow().metrics().instances()).isEqualTo(1);
    at(T0 + 10 * MIN);
    assertThat(provider.requested).hasSize(1);
  }

  @Test
  void anInstanceThatNeverRegistersStopsCountingAtTheBootDeadline() {
    create(dra("dynamic-allocation.min-parallelism", "2"));
    assertThat(provider.requested).hasSize(1); // floor: no timing gate
    at(T0 + 3 * MIN - 1);
    assertThat(provider.requested).hasSize(1);
    assertThat(effective()).isEqualTo(2);
    at(T0 + 3 * MIN);
    assertThat(provider.requested).hasSize(2);
    assertThat(keepers.show(G).orElseThrow().recentActions()).extracting(KeeperAction::reason)
        .anySatisfy(r -> assertThat(r).startsWith("release " + provider.requested.get(0) + " (request past its boot deadline"));
  }

  @Test
  void aRequestThatFailsSynchronouslyIsRetriedOnALaterRound() {
    provider.failRequests = true;
    create(dra("dynamic-allocation.min-parallelism", "2"));
    assertThat(provider.requested).isEmpty();
    assertThat(store.resources).isEmpty();
    assertThat(effective()).as("a failed request is not capacity").isZero();
    provider.failRequests = false;
    at(T0 + 30 * S - 1);
    assertThat(provider.requested).isEmpty();
    at(T0 + 30 * S);
    assertThat(provider.requested).hasSize(1);
    assertThat(keepers.show(G).orElseThrow().lastDecision()).contains("failed synchronously");
    assertThat(effective()).isEqualTo(2);
  }

  @Test
  void aRequestWhoseRecordFailsToPersistStillCounts() {
    store.failResourceWrites = true;
    create(dra("dynamic-allocation.min-parallelism", "2"));
    assertThat(provider.requested).hasSize(1);
    at(T0 + 2 * MIN);
    assertThat(provider.requested).hasSize(1);
    assertThat(effective()).isEqualTo(2);
  }

  @Test
  void aReleaseThatFailsKeepsTheDrainAndIsRetried() {
    create(dra());
    load.register(G, InstanceView.launched("opt-a", 2, 0, "res-a"));
    scheduler.runDue();
    provider.failReleases = true;
    at(T0 + 5 * MIN);
    assertThat(load.drained).containsExactly("opt-a");
    assertThat(provider.released).isEmpty();
    assertThat(keepers.show(G).orElseThrow().metrics().drainingInstances()).isEqualTo(1);

    provider.failReleases = false;
    at(T0 + 5 * MIN + 30 * S - 1);
    assertThat(provider.released).isEmpty();
    at(T0 + 5 * MIN + 30 * S);
    assertThat(provider.released).containsExactly("res-a");
    load.unregister(G, "opt-a");
    scheduler.runDue();
    assertThat(keepers.show(G).orElseThrow().metrics().drainingInstances()).isZero();
  }

  @Test
  void scaleDownDrainsOneInstanceAtATimeSpacedByTheCooldown() {
    create(dra("dynamic-allocation.min-parallelism", "2"));
    String floor = provider.requested.get(0);
    load.register(G, InstanceView.launched("opt-0", 2, 0, floor));
    load.register(G, InstanceView.launched("opt-1", 2, 0, "res-1"));
    load.register(G, InstanceView.launched("opt-2", 2, 0, "res-2"));
    scheduler.runDue();

    at(T0 + 5 * MIN);
    assertThat(load.drained).hasSize(1);
    assertThat(provider.released).hasSize(1); // idle, so removed at once
    load.unregister(G, load.drained.get(0));
    scheduler.runDue();
    at(T0 + 6 * MIN - 1);
    assertThat(load.drained).hasSize(1);
    at(T0 + 6 * MIN);
    assertThat(load.drained).hasSize(2);
    load.unregister(G, load.drained.get(1));
    at(T0 + 60 * MIN);
    assertThat(load.drained).hasSize(2); // the floor of 2 threads stays
  }

  @Test
  void aDrainWithTasksInFlightIsForcedAtTheDrainTimeout() {
    create(dra());
    load.register(G, InstanceView.launched("opt-a", 2, 0, "res-a"));
    load.taskOnDrain = true; // a poll that was already parked hands it a task as the drain starts
    scheduler.runDue();
    at(T0 + 5 * MIN);
    assertThat(load.drained).containsExactly("opt-a");
    assertThat(provider.released).isEmpty();
    at(T0 + 20 * MIN - 1);
    assertThat(provider.released).isEmpty();
    at(T0 + 20 * MIN);
    assertThat(provider.released).containsExactly("res-a");
    assertThat(keepers.show(G).orElseThrow().recentActions()).extracting(KeeperAction::reason)
        .anySatisfy(r -> assertThat(r).contains("forcibly: drain-timeout 15min"));
    at(T0 + 30 * MIN);
    assertThat(provider.released).as("released once while it waits to expire").containsExactly("res-a");
  }

  @Test
  void enablingAndDisablingDynamicAllocationAtRuntime() {
    create(dra("dynamic-allocation.enabled", "false"));
    load.load(G, 5, 0);
    at(T0 + 5 * MIN);
    assertThat(provider.requested).isEmpty();
    assertThat(scheduler.pendingTimes()).isEmpty();

    keepers.update(G, Map.of("dynamic-allocation.enabled", "true"), Set.of());
    scheduler.runDue();
    at(T0 + 6 * MIN);
    assertThat(provider.requested).hasSize(1);

    keepers.update(G, Map.of("dynamic-allocation.enabled", "false"), Set.of());
    at(T0 + 8 * MIN);
    assertThat(provider.requested).hasSize(1);
    assertThat(effective()).as("boot-window accounting kept while disabled").isEqualTo(2);

    keepers.update(G, Map.of("dynamic-allocation.enabled", "true"), Set.of());
    scheduler.runDue();
    assertThat(keepers.show(G).orElseThrow().draEnabled()).isTrue();
    assertThat(provider.requested).as("a new backlog episode starts its gate").hasSize(1);
    at(T0 + 9 * MIN);
    assertThat(provider.requested).hasSize(2);
  }

  @Test
  void theFloorOnlyKeeperTopsUpAGroupWithoutDynamicAllocation() {
    create(dra("dynamic-allocation.enabled", "false", "dynamic-allocation.min-parallelism", "4"));
    assertThat(provider.requested).hasSize(2);
    assertThat(keepers.show(G).orElseThrow().lastDecision()).contains("floor-only (dynamic allocation off)");
    registerRequest(0, 0);
    load.load(G, 50, 0); // demand does not scale a group without DRA
    at(T0 + 3 * MIN - 1);
    assertThat(provider.requested).hasSize(2);
    at(T0 + 3 * MIN); // the second request never registered: its boot deadline passed, the floor check replaces it
    assertThat(provider.requested).hasSize(3);
    at(T0 + 6 * MIN - 1);
    assertThat(provider.requested).hasSize(3);
    at(T0 + 6 * MIN);
    assertThat(provider.requested).hasSize(4); // still never registering: replaced at each boot deadline
    assertThat(load.drained).isEmpty();
  }

  @Test
  void reEnablingKeepsTheBootingRequestSoItIsNotRequestedAgain() {
    create(dra("dynamic-allocation.min-parallelism", "2"));
    assertThat(provider.requested).hasSize(1);
    clock.set(T0 + 10 * S);
    keepers.update(G, Map.of("dynamic-allocation.enabled", "false"), Set.of());
    clock.set(T0 + 20 * S);
    keepers.update(G, Map.of("dynamic-allocation.enabled", "true"), Set.of());
    scheduler.runDue();
    assertThat(provider.requested).hasSize(1);
    assertThat(effective()).isEqualTo(2);
  }

  @Test
  void aGroupDeletedAndRecreatedUnderTheSameNameStartsWithoutPhantomCapacity() {
    create(dra("dynamic-allocation.min-parallelism", "4"));
    assertThat(provider.requested).hasSize(2);
    assertThat(effective()).isEqualTo(4);

    provider.running.put("orphan-1", LaunchSpec.of(G, "orphan-1", 2, Map.of())); // counted as booting from the next listing
    at(T0 + MIN);
    assertThat(keepers.delete(G)).isTrue();
    List<String> held = new ArrayList<>(provider.requested);
    held.add("orphan-1");
    assertThat(provider.released).as("everything the group may hold, the record-less orphan too")
        .containsExactlyInAnyOrderElementsOf(held);
    assertThat(store.resources).isEmpty();
    assertThat(scheduler.pendingTimes()).isEmpty();

    clock.set(T0 + MIN + 5 * S);
    create(dra("dynamic-allocation.min-parallelism", "2"));
    assertThat(provider.requested).hasSize(3);
    assertThat(effective()).isEqualTo(2);
    assertThat(keepers.show(G).orElseThrow().metrics().scaleUpRounds()).isEqualTo(1);
  }

  @Test
  void deleteIsRefusedWhileTablesAreAssigned() {
    create(dra());
    load.load(G, 0, 0);
    assertThatThrownBy(() -> keepers.delete(G)).isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("1 table is assigned to it");
    assertThat(keepers.show(G)).isPresent();
    assertThat(store.groups).containsKey(G);
  }

  @Test
  void aStoredInvalidConfigurationCountsAsDisabledAndShowsInTheGauge() {
    store.putGroup(GroupDefinition.of("broken", provider.name(), Map.of("dynamic-allocation.enabled", "true")));
    store.putGroup(GroupDefinition.of("gone", "yarn", Map.of()));
    GroupKeepers restarted = newKeepers();
    load.load("broken", 5, 0);
    at(T0 + 10 * MIN);
    assertThat(provider.requested).isEmpty();
    GroupView v = restarted.show("broken").orElseThrow();
    assertThat(v.draEnabled()).isFalse();
    assertThat(v.metrics().configInvalid()).isEqualTo(1);
    assertThat(v.configInvalid().orElseThrow()).contains("dynamic-allocation.max-parallelism");
    assertThat(restarted.show("gone").orElseThrow().configInvalid().orElseThrow()).contains("'yarn' is not available");
  }

  @Test
  void metricsArePublishedPerGroupAndRemovedWithIt() {
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    store.putGroup(GroupDefinition.of("broken", provider.name(), Map.of("dynamic-allocation.enabled", "true")));
    GroupKeepers restarted = newKeepers();
    restarted.bindMetrics(registry);
    restarted.create(GroupDefinition.of(G, provider.name(), dra("dynamic-allocation.min-parallelism", "4")));
    scheduler.runDue();
    assertThat(registry.get(GroupKeepers.meterName("effective-threads")).tag("group", G).gauge().value()).isEqualTo(4);
    assertThat(registry.get(GroupKeepers.meterName("config-invalid")).tag("group", G).gauge().value()).isZero();
    assertThat(registry.get(GroupKeepers.meterName("config-invalid")).tag("group", "broken").gauge().value()).isEqualTo(1);
    assertThat(registry.get(GroupKeepers.meterName("scale-up-rounds")).tag("group", G).functionCounter().count()).isEqualTo(1);
    assertThat(registry.find(GroupKeepers.meterName("threads")).tag("group", G).gauges()).hasSize(1);
    assertThat(registry.getMeters().stream().filter(m -> G.equals(m.getId().getTag("group"))).count())
        .isEqualTo(GroupMetrics.NAMES.size());

    restarted.delete(G);
    assertThat(registry.find(GroupKeepers.meterName("effective-threads")).tag("group", G).gauges()).isEmpty();
  }

  @Test
  void aRestartCountsStoredRequestsAsBooting() {
    create(dra("dynamic-allocation.min-parallelism", "2"));
    assertThat(provider.requested).hasSize(1);
    keepers.close();
    clock.set(T0 + MIN);
    GroupKeepers restarted = newKeepers();
    scheduler.runDue();
    assertThat(provider.requested).hasSize(1);
    assertThat(restarted.show(G).orElseThrow().metrics().effectiveThreads()).isEqualTo(2);
    scheduler.runUntil(T0 + 4 * MIN - 1);
    assertThat(provider.requested).as("one boot deadline from the restart to (re-)register").hasSize(1);
    scheduler.runUntil(T0 + 4 * MIN);
    assertThat(provider.released).containsExactly(provider.requested.get(0));
    assertThat(provider.requested).hasSize(2);
  }

  @Test
  void refusalsNameThePropertyTheValueAndTheRuleAndChangeNothing() {
    create(dra());
    assertThatThrownBy(() -> keepers.create(GroupDefinition.of("Bad_Name", provider.name(), Map.of())))
        .hasMessageContaining("group name 'Bad_Name' is not valid");
    assertThatThrownBy(() -> keepers.create(GroupDefinition.of(G, provider.name(), Map.of())))
        .isInstanceOf(IllegalStateException.class).hasMessageContaining("exists");
    assertThatThrownBy(() -> keepers.create(GroupDefinition.of("x", "yarn", Map.of())))
        .hasMessageContaining("invalid value 'yarn' for the resource provider");
    assertThatThrownBy(() -> keepers.create(GroupDefinition.of("ext", ExternalProvider.NAME, dra())))
        .hasMessageContaining("dynamic-allocation.enabled").hasMessageContaining("external");
    assertThatThrownBy(() -> keepers.update(G, Map.of("dynamic-allocation.min-parallelism", "13"), Set.of()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("'13'").hasMessageContaining("dynamic-allocation.min-parallelism").hasMessageContaining("at most");
    assertThatThrownBy(() -> keepers.update(G, Map.of("dynamic-allocation.executor-idle-timeout", "10s"), Set.of()))
        .hasMessageContaining("dynamic-allocation.executor-idle-timeout").hasMessageContaining("at least 30s");
    assertThatThrownBy(() -> keepers.update(G, Map.of(), Set.of("dynamic-allocation.max-parallelism")))
        .hasMessageContaining("dynamic-allocation.max-parallelism");
    assertThatThrownBy(() -> keepers.update("nope", Map.of(), Set.of())).hasMessageContaining("no optimizer group 'nope'");
    assertThat(keepers.list()).extracting(GroupView::name).containsExactly(G);
    assertThat(store.groups.get(G).properties()).isEqualTo(new java.util.TreeMap<>(dra()));
    assertThat(store.groups).containsOnlyKeys(G);
    assertThat(keepers.list().get(0).definition().properties()).isEqualTo(store.groups.get(G).properties());
    assertThat(List.copyOf(keepers.providers())).containsExactly("external", "in-process");
  }

  // ---------------------------------------------------------------- issue 13: allocation bugs

  @Test
  void aRequestPrunedAtItsBootDeadlineIsReleasedThroughTheProviderAndItsRecordDeleted() {
    create(dra("dynamic-allocation.min-parallelism", "2"));
    String rid = provider.requested.get(0);
    at(T0 + 3 * MIN);
    assertThat(provider.released).containsExactly(rid);
    assertThat(provider.running).doesNotContainKey(rid);
    assertThat(store.resources).doesNotContainKey(rid);
    assertThat(keepers.show(G).orElseThrow().resources()).extracting(ResourceRecord::resourceId).doesNotContain(rid);
    assertThat(provider.requested).as("the floor is requested again").hasSize(2);
  }

  @Test
  void anExpiredRequestWhoseReleaseFailsCountsAgainstTheCapUntilTheReleaseIsConfirmed() {
    create(dra("dynamic-allocation.min-parallelism", "12"));
    assertThat(provider.requested).hasSize(6);
    provider.failReleases = true;
    at(T0 + 3 * MIN + 29 * S);
    assertThat(provider.released).isEmpty();
    assertThat(provider.requested).as("the unreleased requests still hold the cap").hasSize(6);
    assertThat(keepers.show(G).orElseThrow().lastDecision()).contains("no room");
    provider.failReleases = false;
    at(T0 + 3 * MIN + 30 * S);
    assertThat(provider.released).hasSize(6);
    assertThat(provider.requested).as("replaced once released").hasSize(12);
    assertThat(provider.running).hasSize(6);
  }

  @Test
  void atStartStoredRecordsAreReconciledWithWhatTheProviderHolds() {
    store.putGroup(GroupDefinition.of(G, provider.name(), dra("dynamic-allocation.min-parallelism", "2")));
    store.putResource(new ResourceRecord("gone-1", G, 2, T0 - 10 * S)); // deleted by hand while meta was down
    provider.running.put("orphan-1", LaunchSpec.of(G, "orphan-1", 2, Map.of())); // held, but its record was never written
    GroupKeepers restarted = newKeepers();
    scheduler.runDue();
    assertThat(store.resources).doesNotContainKey("gone-1");
    assertThat(restarted.show(G).orElseThrow().metrics().effectiveThreads()).as("the held resource counts, the gone one not")
        .isEqualTo(2);
    assertThat(provider.requested).isEmpty();
    at(T0 + 3 * MIN);
    assertThat(provider.released).as("never registered: released at its boot deadline").containsExactly("orphan-1");
    assertThat(provider.requested).hasSize(1);
  }

  @Test
  void aBootingResourceDeletedByHandIsNoticedAtTheNextSafetyRound() {
    create(dra("dynamic-allocation.min-parallelism", "2"));
    String rid = provider.requested.get(0);
    clock.set(T0 + 10 * S);
    provider.running.remove(rid);
    at(T0 + MIN);
    assertThat(provider.requested).as("replaced at the safety round, not at its boot deadline").hasSize(2);
    assertThat(store.resources).doesNotContainKey(rid);
  }

  @Test
  void disablingDynamicAllocationDuringADrainFinishesTheDrain() {
    create(dra());
    load.register(G, InstanceView.launched("opt-a", 2, 0, "res-a"));
    load.taskOnDrain = true; // the drain starts with a task in flight
    scheduler.runDue();
    at(T0 + 5 * MIN);
    assertThat(load.drained).containsExactly("opt-a");
    assertThat(provider.released).isEmpty();

    clock.set(T0 + 5 * MIN + 10 * S);
    keepers.update(G, Map.of("dynamic-allocation.enabled", "false"), Set.of());
    scheduler.runDue();
    clock.set(T0 + 5 * MIN + 20 * S);
    load.register(G, InstanceView.launched("opt-a", 2, 0, "res-a")); // its task ends
    at(T0 + 7 * MIN);
    assertThat(provider.released).as("the drain is finished, not forgotten").containsExactly("res-a");
    assertThat(keepers.show(G).orElseThrow().metrics().drainingInstances()).isEqualTo(1);
    load.unregister(G, "opt-a");
    at(T0 + 8 * MIN);
    assertThat(keepers.show(G).orElseThrow().metrics().drainingInstances()).isZero();
  }

  @Test
  void aShortenedBacklogTimeoutTakesEffectFromTheNextRound() {
    create(dra());
    load.load(G, 5, 0);
    scheduler.runDue();
    clock.set(T0 + 10 * S);
    keepers.update(G, Map.of("dynamic-allocation.scheduler-backlog-timeout", "20s"), Set.of());
    at(T0 + 20 * S - 1);
    assertThat(provider.requested).isEmpty();
    at(T0 + 20 * S);
    assertThat(provider.requested).as("gate of the new 20 s from the episode's start").hasSize(1);
  }

  @Test
  void theFloorOnlyKeeperSaysWhyItCannotReachTheFloor() {
    create(dra("dynamic-allocation.enabled", "false", "dynamic-allocation.min-parallelism", "4",
        "dynamic-allocation.executor-parallelism", "4", "dynamic-allocation.max-parallelism", "4"));
    assertThat(provider.requested).hasSize(1);
    load.register(G, InstanceView.manual("by-hand", 2, 0));
    clock.set(T0 + 5 * S);
    provider.running.clear(); // the requested instance is gone
    at(T0 + 10 * MIN);
    String decision = keepers.show(G).orElseThrow().lastDecision();
    assertThat(decision).doesNotContain("≥ min-parallelism");
    assertThat(decision).contains("effective 2 < min-parallelism 4").contains("max-parallelism 4");
  }

  @Test
  void aWallClockStepBackDoesNotDelayScaling() {
    SteppedClock wall = new SteppedClock(clock);
    keepers.close();
    keepers = newKeepers(wall);
    create(dra());
    load.load(G, 5, 0); // demand at T0: the gate opens at T0+60 s
    scheduler.runDue();
    at(T0 + 30 * S);
    wall.stepWall(-60 * MIN);
    at(T0 + 60 * S);
    assertThat(provider.requested).as("deadlines run on the monotonic clock").hasSize(1);
  }

  @Test
  void aMissedWorkloadEventIsCaughtByTheSafetyRound() {
    create(dra());
    load.loadSilently(G, 5, 0);
    at(T0 + 2 * MIN);
    assertThat(provider.requested).hasSize(1);
  }

  @Test
  void unknownPropertiesAreRefusedNamingTheKnownKeys() {
    assertThatThrownBy(() -> keepers.create(GroupDefinition.of("x", provider.name(), Map.of("no.such.key", "1"))))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("create of optimizer group 'x' refused")
        .hasMessageContaining("'no.such.key'").hasMessageContaining("known options are")
        .hasMessageContaining("dynamic-allocation.max-parallelism");
    assertThat(keepers.show("x")).isEmpty();
    assertThat(store.groups).doesNotContainKey("x");
    create(dra());
    assertThatThrownBy(() -> keepers.update(G, Map.of("kubernetes.memory", "2Gi"), Set.of()))
        .as("a setting of another provider").hasMessageContaining("'kubernetes.memory'");
    assertThat(store.groups.get(G).properties()).doesNotContainKey("kubernetes.memory");
  }
}
