package dev.tide.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tide.proto.plan.JobDefinition;
import dev.tide.proto.plan.Plan;
import dev.tide.storage.object.LocalObjectStore;
import dev.tide.stream.plan.Agg;
import dev.tide.stream.plan.PlanBuilder;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The file sink writes each committed epoch's changelog exactly once: replaying the files gives the
 * same rows as the materialized view of the same stream, even across a failure and a recovery.
 */
class SinkTest {
  @Test
  void changelogReplaysToTheView(@TempDir Path dir) throws IOException {
    Path out = dir.resolve("changelog");
    Map<String, String> options = new HashMap<>(NexmarkEndToEndTest.options());
    options.put("rate", "8000");
    PlanBuilder b = new PlanBuilder("bids_per_auction");
    PlanBuilder.Stream counts = b.source("nexmark", "bid", options).groupBy("auction").agg(Agg.count("bids"), Agg.max("price", "top"));
    counts.materialize("bids_per_auction");
    counts.sink(out.toString());
    Plan plan = b.build();
    FaultyObjectStore objects = new FaultyObjectStore(new LocalObjectStore(dir.resolve("objects")));
    // No optimizers: the failed put must be a compute node's upload (a failed compaction output causes no recovery).
    try (LocalCluster cluster = new LocalCluster(objects, NexmarkEndToEndTest.fastBarriers().with(OptimizerGroups.CREATE_DEFAULT_GROUP, false), 2, 2)) {
      JobDefinition job = cluster.submit(plan);
      long target = cluster.meta().stats().committedBarriers() + 5;
      await().until(() -> cluster.meta().stats().committedBarriers() >= target);
      objects.failNextPuts(1); // a failed upload: the node fails, the job recovers, uncommitted epochs replay
      await().atMost(Duration.ofMinutes(2)).until(() -> cluster.sourcesDone(job));
      long done = cluster.meta().stats().committedBarriers() + 3; // the sinks publish what the last epochs committed
      await().until(() -> cluster.meta().stats().committedBarriers() >= done);
      assertThat(cluster.meta().stats().recoveries()).isGreaterThanOrEqualTo(1);
      assertThat(replay(out)).containsExactlyElementsOf(NexmarkEndToEndTest.sorted(cluster.scan("bids_per_auction")));
    }
  }

  /** Applies every part file's changelog to a multiset of rows. */
  static List<List<Object>> replay(Path dir) throws IOException {
    Map<List<String>, Integer> rows = new HashMap<>();
    List<Path> parts;
    try (Stream<Path> s = Files.list(dir)) {
      parts = s.filter(p -> p.getFileName().toString().startsWith("part-")).toList();
    }
    for (Path p : parts) {
      for (String line : Files.readAllLines(p)) {
        String[] f = line.split("\t");
        List<String> row = Arrays.asList(f).subList(1, f.length);
        int sign = f[0].equals("INSERT") || f[0].equals("UPDATE_INSERT") ? 1 : -1;
        rows.merge(row, sign, Integer::sum);
      }
    }
    List<Object[]> out = new ArrayList<>();
    rows.forEach((row, n) -> {
      assertThat(n).as("multiplicity of %s", row).isBetween(0, 1);
      if (n == 1) {
        out.add(row.stream().map(Long::parseLong).toArray());
      }
    });
    return NexmarkEndToEndTest.sorted(out);
  }
}
