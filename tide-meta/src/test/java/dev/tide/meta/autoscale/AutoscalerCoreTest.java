package dev.tide.meta.autoscale;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tide.meta.scale.AutoscaleSpec;
import dev.tide.meta.scale.JobIntent;
import dev.tide.proto.stream.ActorLoad;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The decision core's rules, one by one, on a manual clock. */
class AutoscalerCoreTest {
  static final AutoscalerOptions.Settings S = new AutoscalerOptions.Settings(0.7, 0.2, 10_000, 10_000, 30_000, 10_000, 0.1);
  static final AutoscaleSpec ANY = new AutoscaleSpec(1, 64, 0);
  static final long SEC = 1_000_000_000L;

  /**
   * {@code seconds} one-second epochs ending at {@code endMs}, of {@code actors} actors reading
   * {@code rate} rows/s at {@code capacity} per busy actor (at most {@code actors × capacity}).
   */
  static List<LoadSample> steady(long endMs, int seconds, int actors, double rate, double capacity, long backlog) {
    List<LoadSample> out = new ArrayList<>();
    for (int i = seconds - 1; i >= 0; i--) {
      long busy = (long) (rate / capacity * SEC);
      out.add(new LoadSample(endMs / 1000 - i, endMs - i * 1000L, actors, actors * SEC, Math.min(busy, actors * SEC), 0, (long) rate,
          (long) rate, backlog));
    }
    return out;
  }

  static AutoscalerCore.FragmentInput source(int p, List<LoadSample> samples) {
    return new AutoscalerCore.FragmentInput(1, true, false, 1, List.of(), p, 16, samples);
  }

  static AutoscalerCore.FragmentInput hash(int id, int upstream, int root, int p, List<LoadSample> samples) {
    return new AutoscalerCore.FragmentInput(id, false, false, root, List.of(upstream), p, 240, samples); // 240 vnodes: many even splits
  }

  static AutoscalerCore.JobInput job(AutoscaleSpec spec, AutoscalerCore.FragmentInput... fragments) {
    return new AutoscalerCore.JobInput("j", spec, false, "v1", List.of(fragments));
  }

  /** Rounds at 0 (first sight) and at {@code atMs}; the second's result. */
  static AutoscalerCore.Round twoRounds(AutoscalerCore core, AutoscalerCore.JobInput j, long atMs) {
    core.decide(List.of(j), 0);
    return core.decide(List.of(j), atMs);
  }

  @Test
  void noDecisionBeforeStabilizationAndAFullWindowAfterTheLastLayoutChange() {
    AutoscalerCore core = new AutoscalerCore(S);
    AutoscalerCore.JobInput j = job(ANY, source(1, steady(15_000, 15, 1, 1000, 1e6, 0)), hash(2, 1, 2, 1, steady(15_000, 15, 1, 1000, 1100, -1)));
    AutoscalerCore.Round early = twoRounds(core, j, 15_000);
    assertThat(early.actions()).isEmpty();
    assertThat(early.waiting().get("j")).contains("collecting fresh metrics for 5 s more");
    AutoscalerCore.Round ready = core.decide(List.of(job(ANY, source(1, steady(20_000, 20, 1, 1000, 1e6, 0)),
        hash(2, 1, 2, 1, steady(20_000, 20, 1, 1000, 1100, -1)))), 20_000);
    assertThat(ready.actions()).singleElement().satisfies(a -> {
      assertThat(a.ensembleRoot()).isEqualTo(2);
      assertThat(a.to()).isEqualTo(2); // utilization 0.91 > 0.9; ceil(1000 / (1100 × 0.7))
      assertThat(a.reason()).startsWith("scale-up 1 → 2: fragment 2 needs 1000 rows/s at 1100 rows/s per busy actor: utilization 0.91");
    });
  }

  @Test
  void aFragmentInsideTheBandIsLeftAlone() {
    AutoscalerCore core = new AutoscalerCore(S);
    // 2 actors of capacity 1000 reading 1400 rows/s: utilization 0.7
    AutoscalerCore.Round r = twoRounds(core, job(ANY, source(1, steady(30_000, 30, 1, 1400, 1e6, 0)),
        hash(2, 1, 2, 2, steady(30_000, 30, 2, 1400, 1000, -1))), 30_000);
    assertThat(r.actions()).isEmpty();
    assertThat(r.views().get("j")).filteredOn(v -> v.root() == 2).singleElement()
        .satisfies(v -> assertThat(v.status()).isEqualTo("within the band"));
  }

  @Test
  void aJobTheAutoscalerDoesNotOwnOrThatIsBusyIsNotScaled() {
    AutoscalerCore core = new AutoscalerCore(S);
    List<LoadSample> hot = steady(30_000, 30, 1, 5000, 1000, -1);
    assertThat(twoRounds(core, job(null, source(1, steady(30_000, 30, 1, 5000, 1e6, 0)), hash(2, 1, 2, 1, hot)), 30_000).actions()).isEmpty();
    AutoscalerCore.JobInput busy = new AutoscalerCore.JobInput("j", ANY, true, "v1", List.of(hash(2, 1, 2, 1, hot)));
    AutoscalerCore.Round r = twoRounds(core, busy, 30_000);
    assertThat(r.actions()).isEmpty();
    assertThat(r.waiting().get("j")).contains("reschedule is in flight or the job is paused");
  }

  @Test
  void theSourceBacklogIsPlannedToDrainWithinCatchUp() {
    AutoscalerCore core = new AutoscalerCore(S);
    // a source at 1000 rows/s with 50,000 rows behind: it must produce 1000 + 50,000 / 10 s = 6000 rows/s
    AutoscalerCore.Round r = twoRounds(core, job(ANY, source(1, steady(30_000, 30, 1, 1000, 1e6, 50_000)),
        hash(2, 1, 2, 2, steady(30_000, 30, 2, 1000, 1000, -1))), 30_000);
    assertThat(r.actions()).singleElement().satisfies(a -> assertThat(a.to()).isEqualTo(10)); // ceil(6000 / 700) = 9, 10 splits 240 evenly
  }

  @Test
  void selectivityCarriesTargetRatesDownstream() {
    AutoscalerCore core = new AutoscalerCore(S);
    List<LoadSample> filter = new ArrayList<>();
    for (LoadSample s : steady(30_000, 30, 1, 10_000, 1e6, 0)) {
      filter.add(new LoadSample(s.epoch(), s.atMs(), s.actors(), s.elapsedNanos(), s.busyNanos(), 0, s.rowsIn(), s.rowsIn() / 10, 0));
    }
    // the source keeps one row in ten: the aggregation must read 1000 rows/s, at 260 rows/s per busy actor
    AutoscalerCore.Round r = twoRounds(core, job(ANY, source(1, filter), hash(2, 1, 2, 4, steady(30_000, 30, 4, 1000, 260, -1))), 30_000);
    assertThat(r.actions()).singleElement().satisfies(a -> assertThat(a.to()).isEqualTo(6)); // ceil(1000 / 182)
  }

  @Test
  void theJobsRangeAndTheFragmentsUnitsBoundTheParallelism() {
    AutoscalerCore core = new AutoscalerCore(S);
    // 100,000 rows behind: 11,000 rows/s wanted, 15 actors of 1050 rows/s at 0.7
    AutoscalerCore.Round r = twoRounds(core, job(new AutoscaleSpec(1, 6, 0), source(1, steady(30_000, 30, 1, 1000, 1e6, 100_000)),
        hash(2, 1, 2, 1, steady(30_000, 30, 1, 1000, 1050, -1))), 30_000);
    assertThat(r.actions()).singleElement().satisfies(a -> assertThat(a.to()).isEqualTo(6));
    AutoscalerCore.FragmentInput fewVnodes = new AutoscalerCore.FragmentInput(2, false, false, 2, List.of(1), 1, 3,
        steady(30_000, 30, 1, 1000, 1050, -1));
    AutoscalerCore other = new AutoscalerCore(S);
    assertThat(twoRounds(other, job(ANY, source(1, steady(30_000, 30, 1, 1000, 1e6, 100_000)), fewVnodes), 30_000).actions())
        .singleElement().satisfies(a -> assertThat(a.to()).isEqualTo(3));
  }

  @Test
  void evenSplitsOfTheVnodesArePreferredWhenClose() {
    assertThat(AutoscalerCore.even(7, 256, 64)).isEqualTo(8);
    assertThat(AutoscalerCore.even(5, 256, 64)).isEqualTo(5); // 8 is more than 25% away
    assertThat(AutoscalerCore.even(3, 12, 64)).isEqualTo(3);
    assertThat(AutoscalerCore.even(7, 256, 7)).isEqualTo(7); // the limit wins
  }

  @Test
  void aSingletonIsNeverScaledAndAnEnsembleScalesAsOne() {
    AutoscalerCore core = new AutoscalerCore(S);
    AutoscalerCore.FragmentInput singleton = new AutoscalerCore.FragmentInput(3, false, true, 3, List.of(1), 1, 1,
        steady(30_000, 30, 1, 1000, 1010, -1));
    // fragments 4 and 5 form one NoShuffle ensemble driven by 4; 5 is the needier. 4000 rows/s wanted (30,000 behind).
    AutoscalerCore.Round r = twoRounds(core, job(ANY, source(1, steady(30_000, 30, 1, 1000, 1e6, 30_000)), singleton,
        hash(4, 1, 4, 2, steady(30_000, 30, 2, 1000, 1000, -1)), hash(5, 4, 4, 2, steady(30_000, 30, 2, 1000, 600, -1))), 30_000);
    assertThat(r.actions()).singleElement().satisfies(a -> {
      assertThat(a.ensembleRoot()).isEqualTo(4);
      assertThat(a.to()).isEqualTo(10); // ceil(4000 / 420); fragment 4 alone would want 6
      assertThat(a.reason()).contains("fragment 5 needs");
    });
    assertThat(r.views().get("j")).filteredOn(v -> v.root() == 3).singleElement()
        .satisfies(v -> assertThat(v.status()).startsWith("singleton"));
  }

  @Test
  void scaleDownWaitsForTheDelayAndTakesTheMostWantedMeanwhile() {
    AutoscalerCore core = new AutoscalerCore(S);
    core.decide(List.of(job(ANY, source(1, List.of()), hash(2, 1, 2, 10, List.of()))), 0);
    long t = 20_000;
    List<AutoscalerCore.Action> actions = new ArrayList<>();
    for (; t <= 60_000; t += 5_000) {
      double rate = t == 30_000 ? 2_800 : 1_400; // one round wants 4 (at 30 s), the others 2
      actions.addAll(core.decide(List.of(job(ANY, source(1, steady(t, 20, 1, rate, 1e6, 0)),
          hash(2, 1, 2, 10, steady(t, 20, 10, rate, 1000, -1)))), t).actions());
      if (t < 50_000) {
        assertThat(actions).as("at %d ms", t).isEmpty();
      }
    }
    assertThat(actions).singleElement().satisfies(a -> {
      assertThat(a.to()).isEqualTo(4);
      assertThat(a.reason()).startsWith("scale-down 10 → 4 (the most wanted over the last 30 s)");
    });
  }

  @Test
  void anIneffectiveScaleUpStopsFurtherScaleUpsUntilAutoscalingIsSetAgain() {
    AutoscalerCore core = new AutoscalerCore(S);
    core.decide(List.of(job(ANY, source(1, List.of()), hash(2, 1, 2, 2, List.of()))), 0);
    // 2 actors at 1000 rows/s each read 2000 of 4000 rows/s arriving: scale-up to 6
    AutoscalerCore.JobInput before = job(ANY, source(1, steady(20_000, 20, 1, 4000, 1e6, 0)), hash(2, 1, 2, 2, steady(20_000, 20, 2, 2000, 1000, -1)));
    assertThat(core.decide(List.of(before), 20_000).actions()).singleElement().satisfies(a -> assertThat(a.to()).isEqualTo(6));
    // six actors later the fragment still reads 2000 rows/s (a hot key): ineffective
    AutoscalerCore.JobInput after = new AutoscalerCore.JobInput("j", ANY, false, "v2", List.of(source(1, steady(60_000, 20, 1, 4000, 1e6, 0)),
        hash(2, 1, 2, 6, steady(60_000, 20, 6, 2000, 333, -1))));
    core.decide(List.of(after), 30_000);
    AutoscalerCore.Round r = core.decide(List.of(after), 60_000);
    assertThat(r.actions()).isEmpty();
    assertThat(r.views().get("j")).filteredOn(v -> v.root() == 2).singleElement()
        .satisfies(v -> assertThat(v.status()).contains("scale-up stopped: scale-up 2 → 6 of fragment 2 raised its rows/s from 2000 to 2000"));
    AutoscalerCore.JobInput again = new AutoscalerCore.JobInput("j", new AutoscaleSpec(1, 63, 0), false, "v2", after.fragments());
    assertThat(core.decide(List.of(again), 65_000).actions()).as("set anew: it may try again").isNotEmpty();
  }

  @Test
  void theTrackerSumsTheWorkersReportsOfAnEpoch() {
    LoadTracker t = new LoadTracker(60_000);
    ActorLoad a = ActorLoad.newBuilder().setActorId(1).setJobId(7).setFragmentId(2).setElapsedNs(SEC).setIdleNs(SEC / 2).setRowsIn(100)
        .setRowsOut(50).setBacklog(-1).build();
    t.record(1000, 5, List.of(a));
    t.record(1001, 6, List.of(a));
    t.record(1002, 5, List.of(a.toBuilder().setActorId(2).setBlockedNs(SEC / 4).build()));
    assertThat(t.samples(7, 2, 5)).singleElement().satisfies(s -> {
      assertThat(s.actors()).isEqualTo(2);
      assertThat(s.rowsIn()).isEqualTo(200);
      assertThat(s.busyNanos()).isEqualTo(SEC / 2 + SEC / 4);
      assertThat(s.blockedNanos()).isEqualTo(SEC / 4);
    });
    assertThat(t.samples(7, 2, 6)).extracting(LoadSample::epoch).containsExactly(5L, 6L);
    t.retainJobs(java.util.Set.of());
    assertThat(t.samples(7, 2, 6)).isEmpty();
  }

  @Test
  void theAutoscaleSettingIsPartOfTheIntentAndBadOnesAreRefused() {
    JobIntent i = JobIntent.parse("adaptive;auto=2..8@0.6;3=4");
    assertThat(i.autoscale()).isEqualTo(new AutoscaleSpec(2, 8, 0.6));
    assertThat(i.render()).isEqualTo("adaptive;auto=2..8@0.6;3=4");
    assertThat(JobIntent.parse(i.withAutoscale(null).render()).autoscale()).isNull();
    assertThatThrownBy(() -> JobIntent.parse("adaptive;auto=8..2")).hasMessageContaining("min must be at least 1 and at most max");
    assertThatThrownBy(() -> JobIntent.parse("adaptive;auto=1..4@1.5")).hasMessageContaining("target utilization 1.5");
    assertThatThrownBy(() -> JobIntent.parse("adaptive;auto=x")).hasMessageContaining("expected 'auto=MIN..MAX'");
  }
}
