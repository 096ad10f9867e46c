package dev.tide.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tide.common.config.Config;
import dev.tide.meta.MetaOptions;
import dev.tide.meta.RescheduleRequest;
import dev.tide.meta.scale.Intent;
import dev.tide.meta.scale.JobIntent;
import dev.tide.meta.scale.ReschedulePlan;
import dev.tide.meta.schedule.Worker;
import dev.tide.proto.plan.JobDefinition;
import dev.tide.proto.plan.Plan;
import dev.tide.storage.object.LocalObjectStore;
import dev.tide.stream.plan.Agg;
import dev.tide.stream.plan.PlanBuilder;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two control paths meeting, as an operator drives them: pause then rescale, drain then wait, a
 * plan then the membership reconciliation. Each case failed on the meta before the core split.
 */
class OperatorInteractionTest {
  @TempDir Path dir;
  LocalCluster cluster;

  static Config config() {
    return NexmarkEndToEndTest.fastBarriers().with(MetaOptions.SETTLE_DELAY, Duration.ofMillis(200))
        .with(MetaOptions.HEARTBEAT_INTERVAL, Duration.ofMillis(100));
  }

  /** Bids counted per auction from an unbounded source at 2,000 events/s. */
  static Plan counts() {
    Map<String, String> options = new HashMap<>(NexmarkEndToEndTest.options());
    options.remove("events");
    options.put("rate", "2000");
    options.put("splits", "8");
    PlanBuilder b = new PlanBuilder("counts");
    b.source("nexmark", "bid", options).groupBy("auction").agg(Agg.count("bids")).materialize("per_auction");
    return b.build();
  }

  void start(int nodes, int slots) {
    cluster = new LocalCluster(new LocalObjectStore(dir.resolve("objects")), config(), nodes, slots);
  }

  @AfterEach
  void stop() {
    if (cluster != null) {
      cluster.close();
    }
  }

  long emitted(JobDefinition job) {
    return cluster.sourceProgress(job).stream().mapToLong(CommittedViews.SourceProgress::emitted).sum();
  }

  long committedBarriers() {
    return cluster.meta().stats().committedBarriers();
  }

  void awaitBarriers(int n) {
    long target = committedBarriers() + n;
    await().atMost(Duration.ofSeconds(30)).until(() -> committedBarriers() >= target);
  }

  boolean rescheduling(String job) {
    return cluster.meta().snapshot().jobs().get(job).rescheduling();
  }

  /** The committed source offsets do not move over several checkpoints. */
  void assertNoEmission(JobDefinition job) {
    awaitBarriers(3);
    long before = emitted(job);
    awaitBarriers(8);
    assertThat(emitted(job)).as("rows the paused job's sources emitted").isEqualTo(before);
  }

  @Test
  void aPausedJobStaysPausedThroughScaleOutMigrationJoinAndDrain() {
    start(2, 2);
    JobDefinition job = cluster.submit(counts());
    await().until(() -> emitted(job) > 0);
    cluster.meta().setPaused("counts", true);
    assertNoEmission(job);

    cluster.meta().reschedule(RescheduleRequest.scale("counts", JobIntent.fixed(6)));
    await().until(() -> !rescheduling("counts"));
    assertNoEmission(job);

    int first = cluster.nodes().get(0).compute().workerId();
    int second = cluster.nodes().get(1).compute().workerId();
    int source = cluster.meta().layout("counts").fragments().firstKey();
    cluster.meta().reschedule(RescheduleRequest.plan("counts",
        ReschedulePlan.parse(source + ":[" + first + ":-1," + second + ":+1]"), false));
    await().until(() -> !rescheduling("counts"));
    assertNoEmission(job);

    cluster.addNode(2);
    cluster.meta().reschedule(RescheduleRequest.scale("counts", JobIntent.adaptive()));
    await().until(() -> !rescheduling("counts") && cluster.meta().layout("counts").actorsPerWorker().size() == 3);
    assertNoEmission(job);

    cluster.drain(0);
    await().atMost(Duration.ofSeconds(30)).until(() -> !cluster.meta().layout("counts").actorsPerWorker().containsKey(first)
        && !rescheduling("counts"));
    assertNoEmission(job);
    assertThat(cluster.meta().snapshot().jobs().get("counts").paused()).isTrue();

    cluster.meta().setPaused("counts", false);
    long before = emitted(job);
    await().until(() -> emitted(job) > before);
  }

  @Test
  void aDrainedWorkerLeavesAndDoesNotComeBack() {
    start(3, 2);
    cluster.submit(counts());
    awaitBarriers(3);
    int drained = cluster.nodes().get(2).compute().workerId();
    cluster.drain(2);
    await().atMost(Duration.ofSeconds(30))
        .until(() -> cluster.meta().workers().stream().noneMatch(w -> w.id() == drained));
    // Many heartbeat intervals later the node has not registered again, and nothing runs on it.
    awaitBarriers(10);
    List<Worker> workers = cluster.meta().workers();
    assertThat(workers).extracting(Worker::id).hasSize(2).doesNotContain(drained);
    assertThat(cluster.nodes().get(2).compute().actorCount()).isZero();
    assertThat(cluster.meta().layout("counts").actorsPerWorker()).hasSize(2);
  }

  @Test
  void aPlanThatChangesTheActorCountIsNotUndoneByReconciliation() {
    start(2, 2);
    cluster.submit(counts());
    awaitBarriers(3);
    int second = cluster.nodes().get(1).compute().workerId();
    int agg = cluster.meta().layout("counts").fragments().lastKey();
    int before = cluster.meta().layout("counts").actors(agg).size();
    cluster.meta().reschedule(RescheduleRequest.plan("counts", ReschedulePlan.parse(agg + ":[" + second + ":+1]"), false));
    await().until(() -> !rescheduling("counts"));
    assertThat(cluster.meta().layout("counts").actors(agg)).hasSize(before + 1);
    // Well past the settle delay: the membership reconciliation leaves the operator's count alone.
    awaitBarriers(15);
    assertThat(cluster.meta().layout("counts").actors(agg)).hasSize(before + 1);
    assertThat(cluster.meta().snapshot().jobs().get("counts").intent().intentFor(agg)).isEqualTo(new Intent.Fixed(before + 1));
  }
}
