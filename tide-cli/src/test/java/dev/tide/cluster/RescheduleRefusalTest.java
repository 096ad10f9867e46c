package dev.tide.cluster;

import static dev.tide.stream.expr.Ex.col;
import static dev.tide.stream.expr.Ex.gt;
import static dev.tide.stream.expr.Ex.lit;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.tide.meta.RescheduleRequest;
import dev.tide.meta.scale.Intent;
import dev.tide.meta.scale.JobIntent;
import dev.tide.meta.scale.ReschedulePlan;
import dev.tide.meta.schedule.JobLayout;
import dev.tide.proto.plan.DispatchType;
import dev.tide.proto.plan.FragmentEdge;
import dev.tide.proto.plan.JobDefinition;
import dev.tide.proto.plan.Plan;
import dev.tide.storage.object.LocalObjectStore;
import dev.tide.stream.plan.Agg;
import dev.tide.stream.plan.PlanBuilder;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Bad reschedule requests are refused with an error that names the problem, and the cluster's
 * layout is unchanged afterwards.
 */
class RescheduleRefusalTest {
  @TempDir Path dir;
  FaultyObjectStore objects;
  LocalCluster cluster;
  JobDefinition job;

  /** Bids counted per auction, the counts shared by two views (a NO_SHUFFLE pair), and a singleton total. */
  static Plan plan() {
    Map<String, String> options = new HashMap<>(NexmarkEndToEndTest.options());
    options.put("rate", "2000");
    PlanBuilder b = new PlanBuilder("counts");
    PlanBuilder.Stream counts = b.source("nexmark", "bid", options).groupBy("auction").agg(Agg.count("bids"));
    counts.materialize("per_auction");
    counts.filter(gt(col("bids"), lit(3L))).materialize("busy_auctions");
    b.source("nexmark", "bid", options).groupBy().agg(Agg.count("total")).materialize("total");
    return b.build();
  }

  @BeforeEach
  void start() {
    objects = new FaultyObjectStore(new LocalObjectStore(dir.resolve("objects")));
    cluster = new LocalCluster(objects, NexmarkEndToEndTest.fastBarriers(), 2, 2);
    job = cluster.submit(plan());
    await().until(() -> cluster.meta().stats().committedBarriers() > 3);
  }

  @AfterEach
  void stop() {
    cluster.close();
  }

  JobLayout layout() {
    return cluster.meta().snapshot().jobs().get("counts").layout();
  }

  void assertRefused(Runnable request, String... messageParts) {
    JobLayout before = layout();
    assertThatThrownBy(request::run).isInstanceOf(IllegalArgumentException.class).message().contains(messageParts);
    assertThat(layout()).isEqualTo(before);
  }

  static RescheduleRequest plan(String text) {
    return RescheduleRequest.plan("counts", ReschedulePlan.parse(text), false);
  }

  static RescheduleRequest fixed(int n) {
    return RescheduleRequest.scale("counts", new JobIntent(new Intent.Fixed(n), new TreeMap<>()));
  }

  int noShuffleDownstream() {
    return job.getEdgesList().stream().filter(e -> e.getType() == DispatchType.NO_SHUFFLE)
        .mapToInt(FragmentEdge::getDownstreamFragmentId).findFirst().orElseThrow();
  }

  int singleton() {
    return job.getFragmentsList().stream().filter(f -> f.getSingleton()).findFirst().orElseThrow().getFragmentId();
  }

  @Test
  void unknownJob() {
    assertRefused(() -> cluster.meta().reschedule(RescheduleRequest.scale("nope", JobIntent.adaptive())), "unknown job 'nope'");
  }

  @Test
  void unknownFragmentAndWorker() {
    assertRefused(() -> cluster.meta().reschedule(plan("99:[1:+1]")), "99");
    assertRefused(() -> cluster.meta().reschedule(plan("1:[42:+1]")), "42");
  }

  @Test
  void parallelismOutOfRange() {
    assertThatThrownBy(() -> Intent.parse("0")).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("0");
    assertRefused(() -> cluster.meta().reschedule(fixed(300)), "parallelism 300 exceeds the job's vnode count 256");
  }

  @Test
  void downstreamOfNoShuffleEnsemble() {
    int member = noShuffleDownstream();
    assertRefused(() -> cluster.meta().reschedule(plan(member + ":[1:+1]")), "ensemble");
  }

  @Test
  void singletonCannotScale() {
    assertRefused(() -> cluster.meta().reschedule(plan(singleton() + ":[1:+1]")), "singleton");
  }

  @Test
  void malformedPlan() {
    JobLayout before = layout();
    assertThatThrownBy(() -> ReschedulePlan.parse("1:[1:+x]")).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("+x");
    assertThatThrownBy(() -> ReschedulePlan.parse("banana")).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("banana");
    assertThat(layout()).isEqualTo(before);
  }

  @Test
  void secondRescheduleWhileOneIsInFlight() {
    objects.holdPuts(); // nothing uploads, so the first reschedule's epoch cannot commit
    java.util.concurrent.CompletableFuture<dev.tide.meta.RescheduleResult> first;
    try {
      // A reschedule is answered once its barrier committed: the first one waits meanwhile.
      first = java.util.concurrent.CompletableFuture.supplyAsync(() -> cluster.meta().reschedule(fixed(3)));
      await().until(() -> cluster.meta().snapshot().jobs().get("counts").rescheduling());
      JobLayout before = layout();
      assertThatThrownBy(() -> cluster.meta().reschedule(fixed(2))).isInstanceOf(IllegalStateException.class).hasMessageContaining("in flight");
      assertThat(layout()).isEqualTo(before);
      assertThat(first).isNotDone();
    } finally {
      objects.releasePuts();
    }
    assertThat(first.join().applied()).isTrue();
    assertThat(cluster.meta().snapshot().jobs().get("counts").rescheduling()).isFalse();
    assertThat(cluster.meta().reschedule(fixed(2)).applied()).isTrue();
  }

  @Test
  void noOpChangesNothing() {
    JobLayout before = layout();
    assertThat(cluster.meta().reschedule(RescheduleRequest.scale("counts", JobIntent.adaptive())).applied()).isFalse();
    assertThat(layout()).isEqualTo(before);
  }
}
