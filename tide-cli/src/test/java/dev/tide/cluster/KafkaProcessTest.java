package dev.tide.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tide.proto.admin.CreateJobRequest;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code tide ctl job create kafka-bids} on a process cluster ({@code tide meta} and two
 * {@code tide compute} JVMs) against an embedded broker: a compute process SIGKILLed while bids
 * flow and every sink actor publishes at each barrier leaves no duplicate for a read_committed
 * consumer. A replayed epoch would publish counts a second time, so each auction's committed counts
 * must rise strictly, and the last must equal the reference.
 */
class KafkaProcessTest {
  private static final List<String> FAST = List.of("--set", "barrier.interval=200ms", "--set", "heartbeat.interval=200ms",
      "--set", "heartbeat.timeout=3s", "--set", "scaling.settle-delay=1s");
  private static final int BIDS = 40_000;

  @Test
  void computeSigkilledMidRunLeavesNoDuplicate(@TempDir Path dir) throws Exception {
    try (EmbeddedKafka kafka = new EmbeddedKafka(); ClusterProcesses cluster = new ClusterProcesses(dir, FAST)) {
      kafka.createTopic("pbids", 4);
      kafka.createTopic("pcounts", 2);
      List<String> bids = new ArrayList<>();
      for (int i = 0; i < BIDS; i++) {
        bids.add(KafkaConnectorsTest.bid(i));
      }
      kafka.produce("pbids", bids.subList(0, BIDS / 4), 4);
      cluster.startMeta();
      TideProcess victim = cluster.startCompute(2);
      cluster.startCompute(2);
      cluster.jobs().create(CreateJobRequest.newBuilder().setQuery("kafka-bids")
          .putAllSourceOptions(Map.of("bootstrap.servers", kafka.bootstrap(), "topic", "pbids"))
          .putAllSinkOptions(Map.of("connector", "kafka", "bootstrap.servers", kafka.bootstrap(), "topic", "pcounts", "mode", "upsert"))
          .build());
      await().atMost(Duration.ofMinutes(2)).ignoreExceptions().until(() -> !kafka.readCommitted("pcounts").isEmpty());
      kafka.produce("pbids", bids.subList(BIDS / 4, BIDS), 4);
      victim.kill(); // SIGKILL while the sinks stage and publish an epoch at every barrier
      await().atMost(Duration.ofMinutes(2)).ignoreExceptions().until(() -> cluster.status().getRecoveries() >= 1);

      Map<Long, List<Long>> expected = KafkaConnectorsTest.reference(BIDS);
      await().atMost(Duration.ofMinutes(3)).pollInterval(Duration.ofSeconds(1)).ignoreExceptions()
          .untilAsserted(() -> assertThat(KafkaConnectorsTest.upserts(kafka.readCommitted("pcounts"))).isEqualTo(expected));
      Map<String, Long> last = new HashMap<>();
      for (ConsumerRecord<String, String> r : kafka.readCommitted("pcounts")) {
        long n = Long.parseLong(r.value().replaceAll(".*\"bids\":(\\d+).*", "$1"));
        Long before = last.put(r.key(), n);
        assertThat(before == null || n > before).as("count of %s rose from %s to %s (a republished epoch repeats counts)", r.key(), before, n)
            .isTrue();
      }
      assertThat(cluster.scan("kafka_bids")).hasSize(expected.size());
      assertThat(new TreeMap<>(last)).hasSize(expected.size());
    }
  }
}
