package dev.tide.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tide.meta.ClusterSnapshot;
import dev.tide.meta.RescheduleRequest;
import dev.tide.meta.scale.Intent;
import dev.tide.meta.scale.JobIntent;
import dev.tide.meta.scale.LayoutDiff;
import dev.tide.meta.scale.LayoutPlanner;
import dev.tide.meta.schedule.JobLayout;
import dev.tide.proto.plan.JobDefinition;
import dev.tide.storage.object.LocalObjectStore;
import dev.tide.sql.NexmarkJobs;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Meta crashes and restarts on its durable store while a job runs: the restarted meta recovers the
 * catalog, resets the workers to the committed version and the job resumes from there; the final
 * view equals the reference, and a reschedule interrupted by the restart leaves one consistent layout.
 */
class MetaRestartTest {

  @ParameterizedTest(name = "{0} seed {1}")
  @CsvSource({"q5, 1", "q3, 2"})
  void viewSurvivesMetaRestarts(String query, long seed, @TempDir Path dir) {
    Random random = new Random(seed);
    Map<String, String> options = new HashMap<>(NexmarkEndToEndTest.options());
    options.put("rate", "8000");
    try (LocalCluster cluster = new LocalCluster(new LocalObjectStore(dir.resolve("objects")), dir.resolve("meta.db"),
        NexmarkEndToEndTest.fastBarriers(), 3, 2)) {
      JobDefinition job = cluster.submit(NexmarkJobs.plan(query, options));
      int restarts = 1 + random.nextInt(2);
      for (int r = 0; r < restarts; r++) {
        awaitBarriers(cluster, 2 + random.nextInt(6));
        System.out.printf("seed %d: meta restart %d at epoch %d%n", seed, r + 1, cluster.meta().committedVersion().getMaxCommittedEpoch());
        cluster.restartMeta();
      }
      // A restart right after a reschedule was requested: whether its barrier committed or not, the
      // job ends with one layout that matches its intent.
      awaitBarriers(cluster, 2 + random.nextInt(3));
      JobIntent fixed3 = new JobIntent(new Intent.Fixed(3), new TreeMap<>());
      cluster.meta().reschedule(RescheduleRequest.scale(job.getName(), fixed3));
      cluster.restartMeta();

      await().atMost(Duration.ofMinutes(2)).pollInterval(Duration.ofMillis(100)).until(() -> cluster.sourcesDone(job));
      assertThat(cluster.meta().stats().recoveries()).isGreaterThanOrEqualTo(1);
      assertThat(NexmarkEndToEndTest.sorted(cluster.scan(query))).as("view %s (seed %d)", query, seed)
          .containsExactlyElementsOf(NexmarkEndToEndTest.reference(query));

      await().atMost(Duration.ofSeconds(30)).until(() -> !cluster.meta().snapshot().jobs().get(job.getName()).rescheduling());
      ClusterSnapshot.JobView view = cluster.meta().snapshot().jobs().get(job.getName());
      JobLayout target = LayoutPlanner.forIntent(view.definition(), view.layout(), view.intent(), cluster.meta().workers(), () -> -1L);
      assertThat(LayoutDiff.of(view.definition(), view.layout(), target).isEmpty())
          .as("layout matches intent %s (seed %d)", view.intent(), seed).isTrue();
      // What is stored is what meta runs: one more restart recovers the same intent and layout.
      cluster.restartMeta();
      ClusterSnapshot.JobView again = cluster.meta().snapshot().jobs().get(job.getName());
      assertThat(again.intent()).isEqualTo(view.intent());
      assertThat(again.layout()).isEqualTo(view.layout());
    }
  }

  @Test
  void intentPauseAndIdsSurviveRestart(@TempDir Path dir) {
    Map<String, String> options = new HashMap<>(NexmarkEndToEndTest.options());
    options.put("rate", "2000");
    try (LocalCluster cluster = new LocalCluster(dir, NexmarkEndToEndTest.fastBarriers(), 2, 2)) {
      JobDefinition q5 = cluster.submit(NexmarkJobs.plan("q5", options));
      JobDefinition q3 = cluster.submit(NexmarkJobs.plan("q3", options));
      awaitBarriers(cluster, 3);

      // A reschedule that changes the layout: its intent is stored with the layout at commit.
      JobIntent fixed2 = new JobIntent(new Intent.Fixed(2), new TreeMap<>());
      assertThat(cluster.meta().reschedule(RescheduleRequest.scale(q5.getName(), fixed2)).applied()).isTrue();
      await().atMost(Duration.ofSeconds(30)).until(() -> !cluster.meta().snapshot().jobs().get(q5.getName()).rescheduling());
      JobLayout q5Layout = cluster.meta().layout(q5.getName());
      // An intent-only change: the layout already fits it.
      int q3Parallelism = cluster.meta().layout(q3.getName()).allActors().size() > 0
          ? maxActorsPerFragment(cluster.meta().layout(q3.getName())) : 1;
      JobIntent q3Intent = new JobIntent(new Intent.Fixed(q3Parallelism), new TreeMap<>());
      cluster.meta().reschedule(RescheduleRequest.scale(q3.getName(), q3Intent));
      cluster.meta().setPaused(q3.getName(), true);
      awaitBarriers(cluster, 2);

      cluster.restartMeta();

      ClusterSnapshot s = cluster.meta().snapshot();
      assertThat(s.jobs().get(q5.getName()).intent()).isEqualTo(fixed2);
      assertThat(s.jobs().get(q5.getName()).layout()).isEqualTo(q5Layout);
      assertThat(s.jobs().get(q3.getName()).intent()).isEqualTo(q3Intent);
      assertThat(s.jobs().get(q3.getName()).paused()).isTrue();
      assertThat(s.workers()).hasSize(2);
      awaitBarriers(cluster, 2);

      // Ids continue above everything handed out before the restart.
      Set<Long> before = new HashSet<>();
      s.jobs().values().forEach(j -> j.layout().allActors().forEach(a -> before.add(a.actorId())));
      JobDefinition q1 = cluster.submit(NexmarkJobs.plan("q1", options));
      assertThat(q1.getJobId()).isGreaterThan(Math.max(q5.getJobId(), q3.getJobId()));
      long minBefore = before.stream().mapToLong(Long::longValue).max().orElseThrow();
      assertThat(cluster.meta().layout(q1.getName()).allActors()).allSatisfy(a -> assertThat(a.actorId()).isGreaterThan(minBefore));

      cluster.meta().setPaused(q3.getName(), false);
      await().atMost(Duration.ofMinutes(2)).pollInterval(Duration.ofMillis(100))
          .until(() -> cluster.sourcesDone(q5) && cluster.sourcesDone(q3));
      assertThat(NexmarkEndToEndTest.sorted(cluster.scan("q5"))).containsExactlyElementsOf(NexmarkEndToEndTest.reference("q5"));
      assertThat(NexmarkEndToEndTest.sorted(cluster.scan("q3"))).containsExactlyElementsOf(NexmarkEndToEndTest.reference("q3"));
    }
  }

  private static int maxActorsPerFragment(JobLayout layout) {
    return layout.fragments().values().stream().mapToInt(List::size).max().orElse(1);
  }

  private static void awaitBarriers(LocalCluster cluster, int more) {
    long target = cluster.meta().stats().committedBarriers() + more;
    await().atMost(Duration.ofMinutes(1)).until(() -> cluster.meta().stats().committedBarriers() >= target);
  }
}
