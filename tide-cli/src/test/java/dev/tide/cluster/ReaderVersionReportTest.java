package dev.tide.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tide.common.config.Config;
import dev.tide.common.time.Clock;
import dev.tide.storage.CloseableIterator;
import dev.tide.storage.KeyValue;
import dev.tide.sql.NexmarkJobs;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Compute nodes report the oldest state-store version their readers use with every heartbeat, so
 * that meta deletes an obsolete SST only once no node's open scan can still read it: a scan open on
 * a compute node holds meta's reader version at the version it pinned while later versions commit,
 * and releases it when closed.
 */
class ReaderVersionReportTest {
  @Test
  void anOpenScanOnAComputeNodeHoldsMetasReaderVersionUntilClosed(@TempDir Path dir) {
    Config config = NexmarkEndToEndTest.fastBarriers().with(ProcessOptions.DATA_DIR, dir.toString())
        .with(ProcessOptions.META_LISTEN, "127.0.0.1:0").with(ProcessOptions.META_HTTP_PORT, -1)
        .with(OptimizerGroups.CREATE_DEFAULT_GROUP, false);
    try (MetaServer meta = MetaServer.start(config, Optional.empty(), Clock.SYSTEM);
        ComputeServer compute = ComputeServer.start(config.with(ProcessOptions.COMPUTE_META, "127.0.0.1:" + meta.grpcPort()),
            Optional.empty(), Clock.SYSTEM)) {
      Map<String, String> options = new HashMap<>(NexmarkEndToEndTest.options());
      options.put("rate", "2000"); // commits new versions for 10 s
      JobGrpcService.submit(meta.meta(), config, NexmarkJobs.plan("q1", options));
      await().atMost(Duration.ofMinutes(1)).until(() -> meta.meta().committedVersion().getId() > 2);

      long pinned;
      try (CloseableIterator<KeyValue> scan = compute.node().store().scan(new byte[0], null)) {
        pinned = compute.node().store().minPinnedVersionId();
        long newer = pinned + 3;
        await().atMost(Duration.ofMinutes(1)).until(() -> meta.meta().committedVersion().getId() >= newer);
        // Versions committed since the scan opened; meta still sees the pinned one, heartbeat after heartbeat.
        await().during(Duration.ofMillis(1500)).atMost(Duration.ofMinutes(1))
            .until(() -> meta.meta().minReaderVersion() == pinned);
      }
      await().atMost(Duration.ofMinutes(1)).until(() -> meta.meta().minReaderVersion() > pinned);
    }
  }
}
