package dev.tide.optimizer.dra;

import static dev.tide.optimizer.dra.Fixtures.MIN;
import static dev.tide.optimizer.dra.Fixtures.S;
import static dev.tide.optimizer.dra.Fixtures.T0;
import static dev.tide.optimizer.dra.Fixtures.cfg;
import static dev.tide.optimizer.dra.Fixtures.snap;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tide.optimizer.dra.Fixtures.Keeper;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Requested-not-registered capacity (spec 11). */
class BootWindowTest {

  @Test
  void aRequestCountsUntilItsBootDeadlineThenIsPruned() {
    Keeper k = new Keeper(cfg("dynamic-allocation.min-parallelism", "2", "dynamic-allocation.executor-parallelism", "2"));
    ScaleDecision first = k.round(snap().build(), T0);
    assertThat(first.instancesRequested()).isEqualTo(1);
    assertThat(first.state().pendingRequests()).singleElement()
        .satisfies(p -> assertThat(p.bootDeadlineMs()).isEqualTo(T0 + 3 * MIN));
    assertThat(k.add(snap().build(), T0 + 30 * S)).isZero();
    assertThat(k.last.nextEvaluationMs()).isEqualTo(T0 + 3 * MIN);
    assertThat(k.last.nextEvaluationReason()).contains("boot deadline");
    assertThat(k.add(snap().build(), T0 + 3 * MIN - 1)).isZero();
    ScaleDecision expired = k.round(snap().build(), T0 + 3 * MIN);
    assertThat(expired.summary()).contains("did not register within dra.boot-deadline 3min");
    assertThat(expired.instancesRequested()).as("the floor is requested again").isEqualTo(1);
  }

  @Test
  void bootDeadlineIsConfigurable() {
    Keeper k = new Keeper(cfg("dynamic-allocation.min-parallelism", "1", "dra.boot-deadline", "45s"));
    k.round(snap().build(), T0);
    assertThat(k.add(snap().build(), T0 + 44_999)).isZero();
    assertThat(k.add(snap().build(), T0 + 45 * S)).isEqualTo(1);
  }

  @Test
  void aRegisteredRequestLeavesTheBootWindowAndCountsAsRegistered() {
    Keeper k = new Keeper(cfg("dynamic-allocation.min-parallelism", "1"));
    String rid = k.round(snap().build(), T0).scaleUp().orElseThrow().resourceIds().get(0);
    ScaleDecision d = k.round(snap().launchedAs("opt-1", 1, 0, rid).build(), T0 + 20 * S);
    assertThat(d.state().pendingRequests()).isEmpty();
    assertThat(d.instancesRequested()).isZero();
    assertThat(d.state().lastBusyMs()).containsEntry("opt-1", T0 + 20 * S);
  }

  @Test
  void aSynchronouslyFailedRequestIsDroppedAndRetriedOnTheNextRound() {
    Keeper k = new Keeper(cfg());
    Fixtures.Snap demand = snap().busyInstances(2, 1).planned(3);
    k.round(demand.build(), T0);
    ScaleDecision add = k.round(demand.build(), T0 + 60 * S);
    String rid = add.scaleUp().orElseThrow().resourceIds().get(0);
    assertThat(add.nextEvaluationMs()).isEqualTo(T0 + 90 * S);

    ScaleDecision retry = k.round(demand.outcome(rid, ProviderOutcome.REQUEST_FAILED).build(), T0 + 90 * S);
    assertThat(retry.summary()).contains("request " + rid + " failed synchronously");
    assertThat(retry.state().pendingRequests()).extracting(PendingRequest::resourceId).doesNotContain(rid);
    assertThat(retry.instancesRequested()).as("the failed step again: need 3, ramp 1").isEqualTo(1);
  }

  @Test
  void aFailedFloorRequestIsRetriedAfterOneInterval() {
    Keeper k = new Keeper(cfg("dynamic-allocation.min-parallelism", "1"));
    ScaleDecision d = k.round(snap().build(), T0);
    assertThat(d.nextEvaluationMs()).isEqualTo(T0 + 30 * S);
    assertThat(d.nextEvaluationReason()).isEqualTo("request outcome check");
    String rid = d.scaleUp().orElseThrow().resourceIds().get(0);
    assertThat(k.add(snap().outcome(rid, ProviderOutcome.REQUEST_FAILED).build(), T0 + 30 * S)).isEqualTo(1);
  }

  @Test
  void aLaunchedRequestWhoseRecordFailedToPersistKeepsItsEntry() {
    Keeper k = new Keeper(cfg("dynamic-allocation.min-parallelism", "1"));
    String rid = k.round(snap().build(), T0).scaleUp().orElseThrow().resourceIds().get(0);
    ScaleDecision d = k.round(snap().outcome(rid, ProviderOutcome.LAUNCHED_UNPERSISTED).build(), T0 + 30 * S);
    assertThat(d.instancesRequested()).isZero();
    assertThat(d.state().pendingRequests()).extracting(PendingRequest::resourceId).containsExactly(rid);
  }

  @Test
  void anExpiredRequestIsReplacedAfterANewBacklogGate() {
    Keeper k = new Keeper(cfg());
    Fixtures.Snap demand = snap().busyInstances(1, 1).planned(1);
    k.round(demand.build(), T0);
    assertThat(k.add(demand.build(), T0 + 60 * S)).isEqualTo(1);
    // Covered by the booting request: no demand, so the timer is reset.
    ScaleDecision covered = k.round(demand.build(), T0 + 120 * S);
    assertThat(covered.state().backlog()).isEmpty();
    // Its boot deadline (T0+240 s) passes: it is released, the need returns and waits a new gate.
    ScaleDecision expired = k.round(demand.build(), T0 + 240 * S);
    assertThat(expired.instancesRequested()).isZero();
    String rid = expired.releases().get(0).resourceId();
    ScaleDecision released = k.round(demand.outcome(rid, ProviderOutcome.RELEASED).build(), T0 + 240 * S + 1);
    assertThat(released.nextEvaluationMs()).isEqualTo(T0 + 300 * S);
    assertThat(k.add(demand.build(), T0 + 300 * S - 1)).isZero();
    assertThat(k.add(demand.build(), T0 + 300 * S)).isEqualTo(1);
  }

  @Test
  void anExpiredRequestIsReleasedAndCountsAgainstTheCapUntilTheReleaseIsConfirmed() {
    Keeper k = new Keeper(cfg("dynamic-allocation.min-parallelism", "4", "dynamic-allocation.max-parallelism", "4"));
    ScaleDecision floor = k.round(snap().build(), T0);
    assertThat(floor.instancesRequested()).isEqualTo(4);
    ScaleDecision expired = k.round(snap().build(), T0 + 3 * MIN);
    assertThat(expired.releases()).extracting(Release::resourceId)
        .containsExactlyElementsOf(floor.scaleUp().orElseThrow().resourceIds());
    assertThat(expired.instancesRequested()).as("the four may still start: no room under the cap").isZero();
    assertThat(expired.summary()).contains("leaves no room").contains("4 threads held, 4 of them by resources being released");
    assertThat(expired.nextEvaluationMs()).as("at once: the releases may make room").isEqualTo(T0 + 3 * MIN);
    assertThat(expired.nextEvaluationReason()).startsWith("re-evaluation after the releases");

    // Two releases failed, two were confirmed: two instances fit again; the failed ones are retried later.
    Fixtures.Snap outcomes = snap();
    List<String> ids = floor.scaleUp().orElseThrow().resourceIds();
    outcomes.outcome(ids.get(0), ProviderOutcome.RELEASED).outcome(ids.get(1), ProviderOutcome.RELEASED)
        .outcome(ids.get(2), ProviderOutcome.RELEASE_FAILED).outcome(ids.get(3), ProviderOutcome.RELEASE_FAILED);
    ScaleDecision partly = k.round(outcomes.build(), T0 + 3 * MIN + 1);
    assertThat(partly.instancesRequested()).isEqualTo(2);
    assertThat(partly.releases()).as("retried at the spacing, not at once").isEmpty();
    assertThat(partly.state().releases()).extracting(PendingRelease::resourceId).containsExactly(ids.get(2), ids.get(3));
    ScaleDecision retry = k.round(snap().build(), T0 + 3 * MIN + 30 * S);
    assertThat(retry.releases()).extracting(Release::attempt).containsExactly(2, 2);
  }

  @Test
  void aLateRegistrationBeforeTheReleaseIsConfirmedKeepsTheInstance() {
    Keeper k = new Keeper(cfg("dynamic-allocation.min-parallelism", "1"));
    String rid = k.round(snap().build(), T0).scaleUp().orElseThrow().resourceIds().get(0);
    assertThat(k.round(snap().build(), T0 + 3 * MIN).releases()).hasSize(1);
    ScaleDecision late = k.round(snap().launchedAs("opt-late", 1, 0, rid).outcome(rid, ProviderOutcome.RELEASE_FAILED).build(),
        T0 + 3 * MIN + 10 * S);
    assertThat(late.state().releases()).isEmpty();
    assertThat(late.summary()).contains("registered before its release was confirmed: kept as an instance");
    assertThat(late.noChange()).isTrue();
  }

  @Test
  void theProvidersListIsReconciled() {
    Keeper k = new Keeper(cfg("dynamic-allocation.min-parallelism", "2"));
    String rid = k.round(snap().build(), T0).scaleUp().orElseThrow().resourceIds().get(0);
    // The provider no longer holds the request (deleted by hand) and holds one the keeper never heard of.
    ScaleDecision listed = k.round(snap().held("orphan-1", 2).build(), T0 + 10 * S);
    assertThat(listed.summary()).contains("request " + rid + " is no longer held by the provider")
        .contains("the provider holds orphan-1, unknown to the keeper: counted as booting");
    assertThat(listed.state().pendingRequests()).extracting(PendingRequest::resourceId).containsExactly("orphan-1");
    assertThat(listed.instancesRequested()).as("the orphan covers the floor").isZero();
    assertThat(listed.state().pendingRequests().get(0).bootDeadlineMs()).isEqualTo(T0 + 10 * S + 3 * MIN);
    // Never registering, it is released at its boot deadline like any request.
    assertThat(k.round(snap().build(), T0 + 10 * S + 3 * MIN).releases()).extracting(Release::resourceId).containsExactly("orphan-1");
  }

  @Test
  void disablingKeepsTheUnfinishedWorkAndFloorOnlyRoundsFinishIt() {
    Keeper k = new Keeper(cfg("dynamic-allocation.min-parallelism", "2"));
    k.round(snap().launched("a", 1, 0).build(), T0);
    KeeperState kept = k.state.whenDisabled();
    assertThat(kept.pendingRequests()).hasSize(1);
    assertThat(kept.lastBusyMs()).isEmpty();
    assertThat(kept.backlog()).isEmpty();
    assertThat(List.of(kept.scaleUpRounds())).containsExactly(1L);
    assertThat(kept.hasProviderWork()).isTrue();

    k.state = kept;
    k.cfg = cfg("dynamic-allocation.enabled", "false", "dynamic-allocation.min-parallelism", "2");
    ScaleDecision expired = k.round(snap().launched("a", 1, 0).build(), T0 + 3 * MIN);
    assertThat(expired.releases()).hasSize(1);
    assertThat(expired.instancesRequested()).as("the floor-only keeper replaces it").isEqualTo(1);
    assertThat(expired.summary()).contains("floor-only (dynamic allocation off): effective 1 < min-parallelism 2; adding 1 instance");
  }

  @Test
  void theFloorOnlyKeeperSaysWhyTheFloorCannotBeReached() {
    Keeper k = new Keeper(cfg("dynamic-allocation.enabled", "false", "dynamic-allocation.min-parallelism", "4",
        "dynamic-allocation.executor-parallelism", "4", "dynamic-allocation.max-parallelism", "4"));
    ScaleDecision d = k.round(snap().manual("by-hand", 2, 0).build(), T0);
    assertThat(d.instancesRequested()).isZero();
    assertThat(d.summary()).isEqualTo("floor-only (dynamic allocation off): effective 2 < min-parallelism 4, but max-parallelism 4"
        + " leaves no room for an instance of 4 threads: 2 threads held");
    Keeper noCap = new Keeper(cfg("dynamic-allocation.enabled", "false", "dynamic-allocation.min-parallelism", "4",
        "dynamic-allocation.max-parallelism", null));
    assertThat(noCap.add(snap().build(), T0)).as("without a cap the floor is all that counts").isEqualTo(4);
  }
}
