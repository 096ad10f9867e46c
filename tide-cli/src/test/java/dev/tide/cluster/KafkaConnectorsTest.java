package dev.tide.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tide.meta.scale.JobIntent;
import dev.tide.meta.RescheduleRequest;
import dev.tide.meta.store.PostgresCluster;
import dev.tide.proto.plan.JobDefinition;
import dev.tide.stream.plan.Agg;
import dev.tide.stream.plan.PlanBuilder;
import dev.tide.stream.plan.PlanException;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Kafka source and the Kafka and PostgreSQL sinks against a real embedded KRaft broker and a
 * throwaway PostgreSQL: bids read from a topic, counted per auction, written to an upsert topic and
 * a table, and passed raw to an append-only topic. After a node crash, a meta restart and online
 * rescales (in, then out) in the middle of the run, the read_committed view of each topic and the table equal the reference
 * computed from the produced bids, and the append-only topic holds every input record exactly once.
 */
class KafkaConnectorsTest {
  private static final int BIDS = 20_000;
  private static final int AUCTIONS = 50;
  private static EmbeddedKafka kafka;
  private static PostgresCluster postgres;

  @BeforeAll
  static void start() throws Exception {
    kafka = new EmbeddedKafka();
    postgres = PostgresCluster.start();
  }

  @AfterAll
  static void stop() throws Exception {
    if (kafka != null) {
      kafka.close();
    }
    if (postgres != null) {
      postgres.close();
    }
  }

  static String bid(int i) {
    return "{\"auction\":" + (i % AUCTIONS) + ",\"bidder\":" + (i * 7 % 1000) + ",\"price\":" + ((i * 31) % 997)
        + ",\"date_time\":" + (1_700_000_000_000L + i) + "}";
  }

  static Map<String, String> source(String topic) {
    return sourceOptions(kafka.bootstrap(), topic);
  }

  static Map<String, String> sourceOptions(String bootstrap, String topic) {
    Map<String, String> o = new HashMap<>();
    o.put("bootstrap.servers", bootstrap);
    o.put("topic", topic);
    o.put("columns", "auction bigint, bidder bigint, price bigint, date_time timestamp");
    o.put("event-time-column", "date_time");
    o.put("splits", "8");
    return o;
  }

  /** auction -> [count, max price] of bids {@code 0..n-1}. */
  static Map<Long, List<Long>> reference(int n) {
    Map<Long, List<Long>> m = new TreeMap<>();
    for (int i = 0; i < n; i++) {
      long a = i % AUCTIONS;
      long price = (i * 31) % 997;
      m.merge(a, List.of(1L, price), (x, y) -> List.of(x.get(0) + 1, Math.max(x.get(1), y.get(1))));
    }
    return m;
  }

  @Test
  void exactlyOnceThroughCrashAndRescale(@TempDir Path dir) throws Exception {
    kafka.createTopic("bids", 4);
    kafka.createTopic("counts", 2);
    kafka.createTopic("raw", 3);
    String db = postgres.createDatabase();
    try (Connection c = DriverManager.getConnection(db); Statement s = c.createStatement()) {
      s.execute("CREATE TABLE counts (auction bigint PRIMARY KEY, bids bigint, top bigint)");
    }
    List<String> first = new ArrayList<>();
    for (int i = 0; i < BIDS / 2; i++) {
      first.add(bid(i));
    }
    kafka.produce("bids", first, 4);

    PlanBuilder b = new PlanBuilder("kafka_counts");
    PlanBuilder.Stream bids = b.source("kafka", "bids", source("bids"));
    bids.sink("kafka", Map.of("bootstrap.servers", kafka.bootstrap(), "topic", "raw"));
    PlanBuilder.Stream counts = bids.groupBy("auction").agg(Agg.count("bids"), Agg.max("price", "top"));
    counts.sink("kafka", Map.of("bootstrap.servers", kafka.bootstrap(), "topic", "counts", "mode", "upsert"));
    counts.sink("postgres", Map.of("url", db, "table", "counts"));

    try (LocalCluster cluster = new LocalCluster(dir, NexmarkEndToEndTest.fastBarriers(), 3, 2)) {
      JobDefinition job = cluster.submit(b.build());
      long target = cluster.meta().stats().committedBarriers() + 10;
      await().atMost(Duration.ofMinutes(1)).until(() -> cluster.meta().stats().committedBarriers() >= target);
      cluster.crash(0);
      await().atMost(Duration.ofMinutes(1)).until(() -> cluster.meta().stats().recoveries() >= 1);
      cluster.restartMeta(); // the new meta resets the workers to the committed version and rebuilds the job
      // The second half arrives in slices while the job is scaled in and out again, so rows are in
      // flight (staged, not yet published) in the epochs that move actors and drop them.
      Thread producer = new Thread(() -> {
        for (int slice = 0; slice < 20; slice++) {
          List<String> part = new ArrayList<>();
          for (int i = BIDS / 2 + slice * (BIDS / 40); i < BIDS / 2 + (slice + 1) * (BIDS / 40); i++) {
            part.add(bid(i));
          }
          kafka.produce("bids", part, 4);
          try {
            Thread.sleep(150); // spreads the input over the rescales; not a timing expectation
          } catch (InterruptedException e) {
            return;
          }
        }
      }, "bids-producer");
      producer.start();
      long mid = cluster.meta().stats().committedBarriers() + 5;
      await().atMost(Duration.ofMinutes(1)).until(() -> cluster.meta().stats().committedBarriers() >= mid);
      cluster.meta().reschedule(RescheduleRequest.scale(job.getName(), JobIntent.fixed(2)));
      long later = cluster.meta().stats().committedBarriers() + 5;
      await().atMost(Duration.ofMinutes(1)).until(() -> cluster.meta().stats().committedBarriers() >= later);
      cluster.meta().reschedule(RescheduleRequest.scale(job.getName(), JobIntent.fixed(4)));
      producer.join();

      Map<Long, List<Long>> expected = reference(BIDS);
      await().atMost(Duration.ofMinutes(2)).pollInterval(Duration.ofMillis(500)).untilAsserted(() -> {
        assertThat(table(db)).isEqualTo(expected);
        assertThat(upserts(kafka.readCommitted("counts"))).isEqualTo(expected);
      });
      List<ConsumerRecord<String, String>> raw = kafka.readCommitted("raw");
      Set<String> seen = new HashSet<>();
      for (ConsumerRecord<String, String> r : raw) {
        String pos = r.value().replaceAll(".*\"_partition\":(\\d+),\"_offset\":(\\d+).*", "$1/$2");
        assertThat(seen.add(pos)).as("record %s written once", pos).isTrue();
      }
      assertThat(raw).hasSize(BIDS);
    }
  }

  @Test
  void malformedRecordsAreSkippedAndCountedOrFailNamingTheOffset(@TempDir Path dir) throws Exception {
    kafka.createTopic("dirty", 1);
    kafka.createTopic("clean", 1);
    kafka.produce("dirty", List.of(bid(0), "not json", bid(1), "{\"auction\":\"x\"}", bid(2)), 1);
    Map<String, String> skip = source("dirty");
    skip.put("on-error", "skip");
    PlanBuilder b = new PlanBuilder("skipping");
    b.source("kafka", "dirty", skip).sink("kafka", Map.of("bootstrap.servers", kafka.bootstrap(), "topic", "clean"));
    try (LocalCluster cluster = new LocalCluster(dir, NexmarkEndToEndTest.fastBarriers(), 1, 2)) {
      cluster.submit(b.build());
      await().atMost(Duration.ofMinutes(1)).untilAsserted(() -> assertThat(kafka.readCommitted("clean")).hasSize(3));
    }
    PlanBuilder f = new PlanBuilder("failing");
    f.source("kafka", "dirty", source("dirty")).groupBy("auction").agg(Agg.count("n")).materialize("failing");
    try (LocalCluster cluster = new LocalCluster(dir.resolve("f"), NexmarkEndToEndTest.fastBarriers(), 1, 2)) {
      cluster.submit(f.build());
      // the actor fails at offset 1 on every attempt: the job keeps recovering and never counts past it
      await().atMost(Duration.ofMinutes(1)).until(() -> cluster.meta().stats().recoveries() >= 2);
      assertThat(cluster.scan("failing")).isEmpty();
    }
  }

  @Test
  void brokerOutageFailsClearlyAndTheJobCarriesOnWhenItIsBack(@TempDir Path dir) throws Exception {
    try (EmbeddedKafka own = new EmbeddedKafka()) {
      own.createTopic("outage_in", 2);
      own.createTopic("outage_out", 1);
      List<String> first = new ArrayList<>();
      List<String> second = new ArrayList<>();
      for (int i = 0; i < 200; i++) {
        (i < 100 ? first : second).add(bid(i));
      }
      own.produce("outage_in", first, 2);
      Map<String, String> src = sourceOptions(own.bootstrap(), "outage_in");
      src.put("request-timeout", "2s");
      src.put("partition-discovery-interval", "500ms");
      PlanBuilder b = new PlanBuilder("outage");
      b.source("kafka", "outage_in", src).sink("kafka", Map.of("bootstrap.servers", own.bootstrap(), "topic", "outage_out",
          "request-timeout", "2s"));
      try (LocalCluster cluster = new LocalCluster(dir, NexmarkEndToEndTest.fastBarriers(), 1, 2)) {
        cluster.submit(b.build());
        await().atMost(Duration.ofMinutes(1)).untilAsserted(() -> assertThat(own.readCommitted("outage_out")).hasSize(100));
        long before = cluster.meta().stats().recoveries();
        own.stopBroker();
        await().atMost(Duration.ofMinutes(1)).until(() -> cluster.meta().stats().recoveries() > before);
        own.startBroker();
        own.produce("outage_in", second, 2);
        await().atMost(Duration.ofMinutes(2)).pollInterval(Duration.ofSeconds(1)).ignoreExceptions()
            .untilAsserted(() -> assertThat(own.readCommitted("outage_out")).hasSize(200));
      }
    }
  }

  @Test
  void badOptionsAreRefusedNamingOptionValueAndRule() {
    Map<String, String> o = source("bids");
    o.put("on-error", "ignore");
    PlanBuilder b = new PlanBuilder("bad");
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> b.source("kafka", "bids", o))
        .isInstanceOf(PlanException.class).hasMessageContaining("on-error").hasMessageContaining("ignore").hasMessageContaining("fail or skip");
    Map<String, String> t = source("bids");
    t.put("event-time-column", "price");
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> b.source("kafka", "bids", t))
        .isInstanceOf(PlanException.class).hasMessageContaining("must name a timestamp column");
    PlanBuilder.Stream s = new PlanBuilder("bad2").source("kafka", "bids", source("bids"));
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> s.sink("kafka", Map.of("bootstrap.servers", "nohostport", "topic", "x")))
        .isInstanceOf(PlanException.class).hasMessageContaining("bootstrap.servers").hasMessageContaining("host:port");
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> s.sink("postgres", Map.of("url", "mysql://x", "table", "t")))
        .isInstanceOf(PlanException.class).hasMessageContaining("url").hasMessageContaining("jdbc:postgresql://");
  }

  static Map<Long, List<Long>> table(String db) throws Exception {
    Map<Long, List<Long>> m = new TreeMap<>();
    try (Connection c = DriverManager.getConnection(db); Statement s = c.createStatement();
         ResultSet rs = s.executeQuery("SELECT auction, bids, top FROM counts")) {
      while (rs.next()) {
        m.put(rs.getLong(1), List.of(rs.getLong(2), rs.getLong(3)));
      }
    }
    return m;
  }

  static Map<Long, List<Long>> upserts(List<ConsumerRecord<String, String>> records) {
    Map<String, String> byKey = new HashMap<>();
    for (ConsumerRecord<String, String> r : records) {
      if (r.value() == null) {
        byKey.remove(r.key());
      } else {
        byKey.put(r.key(), r.value());
      }
    }
    Map<Long, List<Long>> m = new TreeMap<>();
    byKey.values().forEach(v -> {
      long a = Long.parseLong(v.replaceAll(".*\"auction\":(\\d+).*", "$1"));
      long n = Long.parseLong(v.replaceAll(".*\"bids\":(\\d+).*", "$1"));
      long top = Long.parseLong(v.replaceAll(".*\"top\":(\\d+).*", "$1"));
      m.put(a, List.of(n, top));
    });
    return m;
  }
}
