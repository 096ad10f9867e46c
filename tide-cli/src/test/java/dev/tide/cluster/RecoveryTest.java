package dev.tide.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tide.proto.plan.JobDefinition;
import dev.tide.storage.object.LocalObjectStore;
import dev.tide.sql.NexmarkJobs;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Faults at seeded random points of a running job — a compute node crashing, an upload failing
 * (the node reports itself failed), a state read failing (the reading actor fails) — and the final
 * view still equals the reference: no record lost, none duplicated.
 */
class RecoveryTest {
  @ParameterizedTest(name = "{0} seed {1}")
  @CsvSource({"q5, 1", "q5, 2", "q7, 3", "q7, 4", "q3, 5", "q3, 6"})
  void viewSurvivesFaults(String query, long seed, @TempDir Path dir) {
    Random random = new Random(seed);
    FaultyObjectStore objects = new FaultyObjectStore(new LocalObjectStore(dir.resolve("objects")));
    Map<String, String> options = new HashMap<>(NexmarkEndToEndTest.options());
    options.put("rate", "8000");
    // No optimizers: a failed put must hit a compute node's upload (a failed compaction output causes no recovery).
    try (LocalCluster cluster = new LocalCluster(objects, NexmarkEndToEndTest.fastBarriers().with(OptimizerGroups.CREATE_DEFAULT_GROUP, false), 3, 2)) {
      JobDefinition job = cluster.submit(NexmarkJobs.plan(query, options));
      boolean crashed = false;
      boolean certainFault = false;
      int faults = 2 + random.nextInt(2);
      for (int f = 0; f < faults; f++) {
        long target = cluster.meta().stats().committedBarriers() + 2 + random.nextInt(6);
        await().atMost(Duration.ofMinutes(1)).until(() -> cluster.meta().stats().committedBarriers() >= target);
        if (!crashed && random.nextBoolean()) {
          int victim = random.nextInt(cluster.nodes().size());
          System.out.printf("seed %d: crash node %d after %d barriers%n", seed, victim, target);
          cluster.crash(victim);
          crashed = true;
          certainFault = true;
        } else if (random.nextBoolean()) {
          System.out.printf("seed %d: failing upload after %d barriers%n", seed, target);
          objects.failNextPuts(1);
          certainFault = true;
        } else {
          System.out.printf("seed %d: failing a state read after %d barriers%n", seed, target);
          objects.failNextReads(1);
        }
      }
      // A read fault no actor has hit yet is withdrawn: the test's own reader below must not trip on it.
      objects.failNextReads(0);
      await().atMost(Duration.ofMinutes(2)).pollInterval(Duration.ofMillis(100)).until(() -> cluster.sourcesDone(job));
      if (certainFault) {
        // Awaited: the sources may be done before the fault's recovery has finished.
        await().atMost(Duration.ofMinutes(1)).untilAsserted(() ->
            assertThat(cluster.meta().stats().recoveries()).as("recoveries (seed %d)", seed).isGreaterThanOrEqualTo(1));
      }
      List<List<Object>> expected = NexmarkEndToEndTest.reference(query);
      assertThat(NexmarkEndToEndTest.sorted(cluster.scan(query))).as("view %s (seed %d)", query, seed)
          .containsExactlyElementsOf(expected);
    }
  }
}
