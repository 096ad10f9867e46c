package dev.tide.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tide.proto.plan.Fragment;
import dev.tide.proto.plan.JobDefinition;
import dev.tide.stream.nexmark.NexmarkGenerator;
import dev.tide.stream.nexmark.NexmarkTable;
import dev.tide.stream.plan.PlanBuilder;
import dev.tide.stream.source.NexmarkSourceOptions;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The compute nodes' live row counters ({@code ComputeNode#fragmentRowsIn}, the rows behind the
 * load signals) count each row once, at the source and after a hash exchange whose chunks the
 * upstream shares among its downstream actors, each seeing only its rows.
 */
class LiveRowCountersTest {
  @Test
  void rowsInAfterAHashExchangeAreTheRowsTheSourceProduced(@TempDir Path dir) {
    long events = 20_000;
    try (LocalCluster cluster = new LocalCluster(dir, NexmarkEndToEndTest.fastBarriers(), 1, 4)) {
      PlanBuilder b = new PlanBuilder("counters");
      b.source("nexmark", "bid", Map.of(NexmarkSourceOptions.EVENTS.key(), String.valueOf(events),
          NexmarkSourceOptions.SPLITS.key(), "2")).project("auction", "price", "_row_id").materialize("bids");
      JobDefinition job = cluster.submit(b.build());
      await().atMost(Duration.ofMinutes(2)).pollInterval(Duration.ofMillis(50)).until(() -> cluster.sourcesDone(job));

      assertThat(job.getFragmentsCount()).as("a source fragment and the view's, behind a hash exchange").isEqualTo(2);
      long bids = NexmarkGenerator.ordinalsBelow(NexmarkTable.BID, events);
      for (Fragment f : job.getFragmentsList()) {
        long rows = cluster.nodes().stream().mapToLong(n -> n.compute().fragmentRowsIn(job.getJobId(), f.getFragmentId())).sum();
        assertThat(rows).as("fragment %d (source: %s)", f.getFragmentId(), f.getHasSource()).isEqualTo(bids);
      }
      assertThat(cluster.nodes().get(0).compute().sourceRowsProduced()).isEqualTo(bids);
    }
  }
}
