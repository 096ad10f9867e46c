package dev.tide.cluster;

import static org.awaitility.Awaitility.await;

import dev.tide.stream.plan.Agg;
import dev.tide.stream.plan.PlanBuilder;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.jupiter.api.io.TempDir;

/**
 * Throughput from a Kafka topic through a stateful query (count and max per auction) into an
 * upsert Kafka topic, on an in-process cluster: prints events per second, asserts nothing about
 * speed. Run with {@code -Dtide.kafka.bench=<events>} (e.g. 2000000).
 */
@EnabledIfSystemProperty(named = "tide.kafka.bench", matches = "\\d+")
class KafkaThroughputBench {
  @Test
  void kafkaToKafka(@TempDir Path dir) throws Exception {
    int events = Integer.getInteger("tide.kafka.bench");
    try (EmbeddedKafka kafka = new EmbeddedKafka()) {
      kafka.createTopic("bench_bids", 8);
      kafka.createTopic("bench_counts", 4);
      long t0 = System.nanoTime();
      List<String> batch = new ArrayList<>();
      for (int i = 0; i < events; i++) {
        batch.add(KafkaConnectorsTest.bid(i).replace("\"auction\":" + (i % 50), "\"auction\":" + (i % 10_000)));
        if (batch.size() == 100_000 || i == events - 1) {
          kafka.produce("bench_bids", batch, 8);
          batch.clear();
        }
      }
      System.out.printf("produced %d bids in %.1f s%n", events, (System.nanoTime() - t0) / 1e9);
      PlanBuilder b = new PlanBuilder("bench");
      Map<String, String> src = KafkaConnectorsTest.sourceOptions(kafka.bootstrap(), "bench_bids");
      PlanBuilder.Stream counts = b.source("kafka", "bench_bids", src).groupBy("auction").agg(Agg.count("bids"), Agg.max("price", "top"));
      counts.materialize("bench");
      counts.sink("kafka", Map.of("bootstrap.servers", kafka.bootstrap(), "topic", "bench_counts", "mode", "upsert"));
      try (LocalCluster cluster = new LocalCluster(dir, NexmarkEndToEndTest.fastBarriers(), 2, 2)) {
        long start = System.nanoTime();
        cluster.submit(b.build());
        await().atMost(Duration.ofMinutes(20)).pollInterval(Duration.ofMillis(200))
            .until(() -> cluster.scan("bench").stream().mapToLong(r -> (Long) r[1]).sum() == events);
        double s = (System.nanoTime() - start) / 1e9;
        System.out.printf("kafka -> count/max per auction -> kafka upsert: %d events in %.2f s = %.0f events/s (2 nodes x 2 slots, 8 partitions)%n",
            events, s, events / s);
      }
    }
  }
}
