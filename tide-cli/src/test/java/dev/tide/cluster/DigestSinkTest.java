package dev.tide.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tide.common.hash.RowFingerprint;
import dev.tide.meta.RescheduleRequest;
import dev.tide.meta.scale.Intent;
import dev.tide.meta.scale.JobIntent;
import dev.tide.proto.plan.JobDefinition;
import dev.tide.storage.object.LocalObjectStore;
import dev.tide.sql.NexmarkJobs;
import dev.tide.sql.NexmarkJobs.Terminal;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A digest sink's committed digest is the fingerprint of the rows a materialized view of the same
 * stream holds: changelogs with retractions (q4's averages, q5's and q7's maxima) net to the final
 * rows, exactly once across a recovery and rescales that remove and add sink actors.
 */
class DigestSinkTest {
  /** The query's result both as a view (named like the query) and as a digest ({@code <query>_digest}). */
  static final Terminal VIEW_AND_DIGEST = (result, name) -> {
    result.materialize(name);
    result.digest(name + "_digest");
  };

  static RowFingerprint fingerprint(List<List<Object>> rows) {
    RowFingerprint.Builder f = new RowFingerprint.Builder();
    rows.forEach(f::add);
    return f.build();
  }

  @ParameterizedTest
  @ValueSource(strings = {"q0", "q1", "q2", "q3", "q4", "q5", "q7", "q8"})
  void digestEqualsTheReference(String query, @TempDir Path dir) {
    try (LocalCluster cluster = new LocalCluster(dir, NexmarkEndToEndTest.fastBarriers(), 2, 2)) {
      JobDefinition job = cluster.submit(NexmarkJobs.plan(query, NexmarkEndToEndTest.options(), Terminal.DIGEST));
      await().atMost(Duration.ofMinutes(2)).pollInterval(Duration.ofMillis(100)).until(() -> cluster.sourcesDone(job));
      RowFingerprint expected = fingerprint(NexmarkEndToEndTest.reference(query));
      assertThat(expected.rows()).isPositive();
      assertThat(cluster.digest(query)).isEqualTo(expected);
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"q0", "q4"})
  void digestEqualsTheViewAcrossARecoveryAndRescales(String query, @TempDir Path dir) {
    Map<String, String> options = new HashMap<>(NexmarkEndToEndTest.options());
    options.put("rate", "4000");
    FaultyObjectStore objects = new FaultyObjectStore(new LocalObjectStore(dir.resolve("objects")));
    try (LocalCluster cluster = new LocalCluster(objects, NexmarkEndToEndTest.fastBarriers(), 2, 2)) {
      JobDefinition job = cluster.submit(NexmarkJobs.plan(query, options, VIEW_AND_DIGEST));
      afterBarriers(cluster, 3);
      objects.failNextPuts(1); // a failed upload: the node fails, the job recovers, uncommitted epochs replay
      await().atMost(Duration.ofMinutes(1)).until(() -> cluster.meta().stats().recoveries() >= 1);
      rescale(cluster, job, 1); // removes sink actors: their committed rows stay part of the digest
      afterBarriers(cluster, 3);
      rescale(cluster, job, 4); // adds sink actors with new ids
      await().atMost(Duration.ofMinutes(2)).pollInterval(Duration.ofMillis(100)).until(() -> cluster.sourcesDone(job));

      RowFingerprint view = fingerprint(NexmarkEndToEndTest.sorted(cluster.scan(query)));
      assertThat(view).isEqualTo(fingerprint(NexmarkEndToEndTest.reference(query)));
      assertThat(cluster.digest(query + "_digest")).isEqualTo(view);
    }
  }

  /** Rescales every fragment of the job to {@code parallelism}, retrying while a recovery refuses it. */
  private static void rescale(LocalCluster cluster, JobDefinition job, int parallelism) {
    RescheduleRequest request = RescheduleRequest.scale(job.getName(), new JobIntent(new Intent.Fixed(parallelism), new TreeMap<>()));
    await().atMost(Duration.ofMinutes(1)).ignoreExceptions().until(() -> {
      cluster.meta().reschedule(request);
      return true;
    });
  }

  private static void afterBarriers(LocalCluster cluster, int n) {
    long target = cluster.meta().stats().committedBarriers() + n;
    await().atMost(Duration.ofMinutes(1)).until(() -> cluster.meta().stats().committedBarriers() >= target);
  }
}
