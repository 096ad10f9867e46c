package dev.tide.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tide.common.config.Config;
import dev.tide.meta.optimize.OptimizerGrpcService;
import dev.tide.optimizer.dra.InstanceView;
import dev.tide.optimizer.workload.WorkloadOptions;
import dev.tide.proto.plan.JobDefinition;
import dev.tide.sql.NexmarkJobs;
import io.grpc.Server;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A real {@code tide optimizer} child process registers with meta's optimizer service on a loopback
 * port, compacts the embedded cluster's tables through the shared local-directory object store, and
 * unregisters when stopped.
 */
class OptimizerProcessTest {
  @Test
  void optimizerProcessRegistersCompletesTasksAndUnregisters(@TempDir Path dir) throws Exception {
    Config config = NexmarkEndToEndTest.fastBarriers().with(WorkloadOptions.L0_FILES, 4).with(OptimizerGroups.CREATE_DEFAULT_GROUP, false);
    Path log = dir.resolve("optimizer.log");
    try (LocalCluster cluster = new LocalCluster(dir, config, 2, 2)) {
      Server server = NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0))
          .addService(new OptimizerGrpcService(cluster.optimizing())).build().start();
      Process child = null;
      try {
        // The file every role reads, unchanged: keys of meta and compute are accepted and ignored here.
        Path shared = dir.resolve("tide.properties");
        Files.writeString(shared, "data-dir=" + dir + "\nobject-store.dir=" + dir.resolve("objects") + "\nmeta.listen=127.0.0.1:0\n"
            + "meta.http-port=-1\ncompute.slots=2\nheartbeat.timeout=5s\nexchange.window=64\n");
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        child = new ProcessBuilder(java, "-Xmx256m", "-cp", System.getProperty("java.class.path"), "dev.tide.cli.TideCli",
            "optimizer", "--meta", "127.0.0.1:" + server.getPort(), "--threads", "2", "--group", "default",
            "--resource-id", "res-7", "--config", shared.toString(), "--idle-poll", "100ms")
            .redirectErrorStream(true).redirectOutput(log.toFile()).start();
        // Rate-limited so that the job writes L0 files over many barriers, also after the child registered.
        Map<String, String> options = new HashMap<>(NexmarkEndToEndTest.options());
        options.put("rate", "2000");
        JobDefinition job = cluster.submit(NexmarkJobs.plan("q0", options));

        await().atMost(Duration.ofMinutes(1)).pollInterval(Duration.ofMillis(100)).untilAsserted(() ->
            assertThat(cluster.optimizing().instances("default")).singleElement()
                .satisfies(i -> assertThat(i.resourceId()).contains("res-7"))
                .satisfies(i -> assertThat(i.threads()).isEqualTo(2)));
        await().atMost(Duration.ofMinutes(2)).pollInterval(Duration.ofMillis(100))
            .until(() -> cluster.optimizing().stats().compactionsCommitted() >= 1);
        assertThat(cluster.meta().committedVersion().getLevels(0).getSstsList()).isNotEmpty();

        child.destroy(); // SIGTERM: a graceful stop unregisters (meta hands its tasks to another instance) and exits 0
        assertThat(child.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(child.exitValue()).as(Files.readString(log)).isZero();
        assertThat(cluster.optimizing().instances("default")).extracting(InstanceView::instanceId).isEmpty();

        await().atMost(Duration.ofMinutes(2)).pollInterval(Duration.ofMillis(100)).until(() -> cluster.sourcesDone(job));
        List<List<Object>> expected = NexmarkEndToEndTest.reference("q0");
        assertThat(NexmarkEndToEndTest.sorted(cluster.scan("q0"))).containsExactlyElementsOf(expected);
      } catch (AssertionError | RuntimeException e) {
        System.err.println("optimizer process output:\n" + (Files.exists(log) ? Files.readString(log) : "(none)"));
        throw e;
      } finally {
        Optional.ofNullable(child).ifPresent(Process::destroyForcibly);
        server.shutdownNow();
      }
    }
    assertThat(Files.readString(log)).contains("registered in group 'default' with 2 threads")
        .contains("stopped: unregistered, its tasks handed back to meta");
  }
  @Test
  void anOptimizerOnAnotherObjectStoreIsRefusedNamingBothAndTheFix(@TempDir Path dir) throws Exception {
    Config config = NexmarkEndToEndTest.fastBarriers().with(OptimizerGroups.CREATE_DEFAULT_GROUP, false);
    try (LocalCluster cluster = new LocalCluster(dir, config, 1, 1)) {
      String clusterId = dev.tide.storage.object.ClusterMark.ensure(new dev.tide.storage.object.LocalObjectStore(dir.resolve("objects")),
          () -> "cluster-7");
      Server server = NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0))
          .addService(new OptimizerGrpcService(cluster.optimizing(), clusterId)).build().start();
      try {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Process child = new ProcessBuilder(java, "-Xmx256m", "-cp", System.getProperty("java.class.path"), "dev.tide.cli.TideCli",
            "optimizer", "--meta", "127.0.0.1:" + server.getPort(), "--threads", "1", "--objects", dir.resolve("elsewhere").toString())
            .redirectErrorStream(true).start();
        String output = new String(child.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(child.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(child.exitValue()).as(output).isNotZero();
        assertThat(output).contains("optimizer's object store LocalObjectStore(" + dir.resolve("elsewhere") + ") holds no cluster mark"
            + " (cluster.id), but meta's belongs to cluster cluster-7", "Give optimizer meta's object store");
      } finally {
        server.shutdownNow();
      }
    }
  }
}
