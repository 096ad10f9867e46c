package dev.tide.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tide.common.config.Config;
import dev.tide.meta.ClusterSnapshot;
import dev.tide.meta.MetaOptions;
import dev.tide.meta.RescheduleRequest;
import dev.tide.meta.scale.Intent;
import dev.tide.meta.scale.JobIntent;
import dev.tide.meta.scale.ReschedulePlan;
import dev.tide.meta.schedule.ActorPlacement;
import dev.tide.meta.schedule.Worker;
import dev.tide.proto.plan.Fragment;
import dev.tide.proto.plan.JobDefinition;
import dev.tide.storage.object.LocalObjectStore;
import dev.tide.sql.NexmarkJobs;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The acceptance test of online scaling: stateful queries run while a seeded random sequence of
 * scale-out, scale-in, migration, pause/resume, node join, node drain and node crash is applied;
 * the final view equals the reference computed from the source's events, row for row. More seeds
 * run with {@code -Dtide.chaos.seeds=N} (the {@code chaos} Maven profile sets it). The first seed is
 * {@code -Dtide.chaos.first-seed=S}, by default derived from today's date (printed), so every day's
 * runs explore new seeds; a failing case names its seed, and replays with that first seed.
 */
class OnlineScalingChaosTest {
  static List<Object[]> cases() {
    int seeds = Integer.getInteger("tide.chaos.seeds", 1);
    String first = System.getProperty("tide.chaos.first-seed", "");
    long base = first.isBlank() ? java.time.LocalDate.now(java.time.ZoneOffset.UTC).toEpochDay() * 1000 : Long.parseLong(first.trim());
    System.out.println("online-scaling chaos: first seed " + base + " (replay with -Dtide.chaos.first-seed=" + base + ")");
    List<Object[]> out = new ArrayList<>();
    String[] queries = {"q3", "q5", "q7", "q8"};
    for (int s = 0; s < seeds; s++) {
      for (int q = 0; q < queries.length; q++) {
        out.add(new Object[] {queries[q], base + s});
      }
    }
    return out;
  }

  @ParameterizedTest(name = "{0} seed {1}")
  @MethodSource("cases")
  void viewSurvivesScalingChaos(String query, long seed, @TempDir Path dir) {
    Random random = new Random(seed);
    Config config = NexmarkEndToEndTest.fastBarriers().with(MetaOptions.SETTLE_DELAY, Duration.ofMillis(200));
    Map<String, String> options = new HashMap<>(NexmarkEndToEndTest.options());
    options.put("rate", "5000");
    List<String> log = new ArrayList<>();
    try (LocalCluster cluster = new LocalCluster(new LocalObjectStore(dir.resolve("objects")), config, 3, 2)) {
      JobDefinition job = cluster.submit(NexmarkJobs.plan(query, options));
      boolean paused = false;
      boolean crashed = false;
      int ops = 6 + random.nextInt(4);
      for (int i = 0; i < ops && !cluster.sourcesDone(job); i++) {
        long target = cluster.meta().stats().committedBarriers() + 1 + random.nextInt(4);
        await().atMost(Duration.ofMinutes(1)).until(() -> cluster.meta().stats().committedBarriers() >= target);
        String op = apply(cluster, job, random, paused, crashed);
        log.add(op);
        paused = op.startsWith("pause") || (paused && !op.startsWith("resume"));
        crashed |= op.startsWith("crash");
      }
      if (paused) {
        cluster.meta().setPaused(query, false);
        log.add("resume");
      }
      await().atMost(Duration.ofMinutes(3)).pollInterval(Duration.ofMillis(100)).until(() -> cluster.sourcesDone(job));
      assertThat(NexmarkEndToEndTest.sorted(cluster.scan(query)))
          .as("view %s with seed %d after %s", query, seed, log)
          .containsExactlyElementsOf(NexmarkEndToEndTest.reference(query));
    }
  }

  /** Applies one random operation; returns what it did. */
  private static String apply(LocalCluster cluster, JobDefinition job, Random random, boolean paused, boolean crashed) {
    ClusterSnapshot snap = cluster.meta().snapshot();
    ClusterSnapshot.JobView view = snap.jobs().get(job.getName());
    List<Worker> workers = snap.workers().stream().filter(w -> !snap.draining().contains(w.id())).toList();
    int choice = random.nextInt(8);
    try {
      switch (choice) {
        case 0, 1 -> {
          int n = 1 + random.nextInt(8);
          cluster.meta().reschedule(RescheduleRequest.scale(job.getName(), new JobIntent(new Intent.Fixed(n), new TreeMap<>())));
          return "scale " + n;
        }
        case 2 -> {
          cluster.meta().reschedule(RescheduleRequest.scale(job.getName(), JobIntent.adaptive()));
          return "scale adaptive";
        }
        case 3 -> {
          List<Fragment> frags = job.getFragmentsList();
          Fragment f = frags.get(random.nextInt(frags.size()));
          List<ActorPlacement> actors = view.layout().actors(f.getFragmentId());
          ActorPlacement a = actors.get(random.nextInt(actors.size()));
          Worker to = workers.get(random.nextInt(workers.size()));
          String plan = f.getFragmentId() + ":[" + a.workerId() + ":-1," + to.id() + ":+1]";
          cluster.meta().reschedule(RescheduleRequest.plan(job.getName(), ReschedulePlan.parse(plan), false));
          return "migrate " + plan;
        }
        case 4 -> {
          cluster.meta().setPaused(job.getName(), !paused);
          return paused ? "resume" : "pause";
        }
        case 5 -> {
          cluster.addNode(1 + random.nextInt(3));
          return "join node " + cluster.nodes().size();
        }
        case 6 -> {
          if (workers.size() <= 1) {
            return "skip drain";
          }
          int idx = indexOf(cluster, workers.get(random.nextInt(workers.size())).id());
          cluster.drain(idx);
          return "drain node " + idx;
        }
        default -> {
          if (crashed || workers.size() <= 1) {
            return "skip crash";
          }
          int idx = indexOf(cluster, workers.get(random.nextInt(workers.size())).id());
          cluster.crash(idx);
          return "crash node " + idx;
        }
      }
    } catch (IllegalArgumentException | IllegalStateException e) {
      return "refused (" + e.getMessage() + ")";
    }
  }

  private static int indexOf(LocalCluster cluster, int workerId) {
    for (int i = 0; i < cluster.nodes().size(); i++) {
      if (cluster.nodes().get(i).compute().workerId() == workerId) {
        return i;
      }
    }
    throw new IllegalArgumentException("no node with worker id " + workerId);
  }
}
