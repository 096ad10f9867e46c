package dev.tide.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tide.common.types.Schema;
import dev.tide.connectors.format.AvroFormat;
import dev.tide.connectors.format.LoopbackSchemaRegistry;
import dev.tide.connectors.format.RowFormat;
import dev.tide.connectors.format.SchemaRegistry;
import dev.tide.meta.scale.JobIntent;
import dev.tide.meta.RescheduleRequest;
import dev.tide.meta.store.PostgresCluster;
import dev.tide.proto.plan.JobDefinition;
import dev.tide.stream.plan.Agg;
import dev.tide.stream.plan.PlanBuilder;
import dev.tide.stream.plan.PlanException;
import java.nio.charset.StandardCharsets;
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
import org.apache.kafka.clients.producer.ProducerRecord;
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

  /**
   * Avro both ways through a schema registry: bids in the Confluent wire format under two writer
   * schemas (the second adds a field), plus a record not in the wire format and one naming an id
   * the registry lacks (skipped, counted and exported in /metrics); counts per auction written as
   * Avro to an upsert topic (value and key schemas registered by the sink), raw rows as bare Avro of
   * the derived schema. The registry is {@link LoopbackSchemaRegistry}: the documented REST subset
   * on a loopback JDK HTTP server, not Confluent's.
   */
  @Test
  void avroThroughASchemaRegistryInAndOut(@TempDir Path dir) throws Exception {
    kafka.createTopic("abids", 2);
    kafka.createTopic("acounts", 1);
    kafka.createTopic("araw", 1);
    try (LoopbackSchemaRegistry registry = new LoopbackSchemaRegistry()) {
      String v1 = """
          {"type":"record","name":"Bid","fields":[{"name":"auction","type":"long"},{"name":"bidder","type":"long"},
           {"name":"price","type":"long"},{"name":"date_time","type":{"type":"long","logicalType":"timestamp-millis"}}]}""";
      String v2 = v1.replace("{\"name\":\"bidder\"", "{\"name\":\"channel\",\"type\":\"string\",\"default\":\"web\"},{\"name\":\"bidder\"");
      int id1 = registry.register("abids-value", v1);
      int id2 = registry.register("abids-value", v2);
      Schema cols1 = AvroFormat.columns(AvroFormat.parse(v1));
      AvroFormat.Writer w1 = new AvroFormat.Writer(AvroFormat.parse(v1), cols1, new int[] {0, 1, 2, 3}, id1);
      Schema cols2 = AvroFormat.columns(AvroFormat.parse(v2));
      AvroFormat.Writer w2 = new AvroFormat.Writer(AvroFormat.parse(v2), cols2, new int[] {0, 1, 2, 3, 4}, id2);
      int n = 2_000;
      List<ProducerRecord<byte[], byte[]>> records = new ArrayList<>();
      for (int i = 0; i < n; i++) {
        long a = i % AUCTIONS;
        long price = (i * 31) % 997;
        byte[] v = i % 2 == 0 ? w1.encode(new Object[] {a, (long) i, price, 1_700_000_000_000L + i})
            : w2.encode(new Object[] {a, "app", (long) i, price, 1_700_000_000_000L + i});
        records.add(new ProducerRecord<>("abids", i % 2, null, v));
        if (i == n / 2) {
          records.add(new ProducerRecord<>("abids", 0, null, "{\"auction\":1}".getBytes(StandardCharsets.UTF_8)));
          byte[] unknown = v.clone();
          unknown[4] = 99; // schema id 99
          records.add(new ProducerRecord<>("abids", 1, null, unknown));
        }
      }
      kafka.produceBytes(records);

      Map<String, String> src = new HashMap<>();
      src.put("bootstrap.servers", kafka.bootstrap());
      src.put("topic", "abids");
      src.put("format", "avro");
      src.put("avro.schema-registry.url", registry.url());
      src.put("columns", "auction bigint, price bigint, date_time timestamp");
      src.put("on-error", "skip");
      src.put("splits", "2");
      PlanBuilder b = new PlanBuilder("avro");
      PlanBuilder.Stream bids = b.source("kafka", "abids", src);
      bids.sink("kafka", Map.of("bootstrap.servers", kafka.bootstrap(), "topic", "araw", "format", "avro"));
      bids.groupBy("auction").agg(Agg.count("bids"), Agg.max("price", "top")).sink("kafka", Map.of("bootstrap.servers", kafka.bootstrap(),
          "topic", "acounts", "mode", "upsert", "format", "avro", "avro.schema-registry.url", registry.url()));
      try (LocalCluster cluster = new LocalCluster(dir, NexmarkEndToEndTest.fastBarriers(), 1, 2)) {
        cluster.submit(b.build());
        Map<Long, List<Long>> expected = reference(n);
        Schema counts = RowFormat.parseColumns("auction bigint, bids bigint, top bigint");
        SchemaRegistry reader = new SchemaRegistry(registry.url(), Duration.ofSeconds(10));
        await().atMost(Duration.ofMinutes(1)).pollInterval(Duration.ofMillis(500)).untilAsserted(() -> {
          Map<Long, List<Long>> seen = new TreeMap<>();
          for (ConsumerRecord<byte[], byte[]> r : kafka.readCommittedBytes("acounts")) {
            Object[] key = new Object[1];
            new AvroFormat.Reader(reader.schema(AvroFormat.schemaId(r.key())), RowFormat.parseColumns("auction bigint")).decode(r.key(), 5, key);
            Object[] row = new Object[3];
            new AvroFormat.Reader(reader.schema(AvroFormat.schemaId(r.value())), counts).decode(r.value(), 5, row);
            assertThat(row[0]).isEqualTo(key[0]);
            seen.put((Long) row[0], List.of((Long) row[1], (Long) row[2]));
          }
          assertThat(seen).isEqualTo(expected);
        });
        assertThat(registry.versions("acounts-value")).hasSize(1);
        assertThat(registry.versions("acounts-key")).hasSize(1);

        Schema raw = RowFormat.parseColumns("auction bigint, price bigint, date_time timestamp, _partition int, _offset bigint");
        AvroFormat.Reader rawReader = new AvroFormat.Reader(AvroFormat.recordFor("araw", raw, new int[] {0, 1, 2, 3, 4}), raw);
        await().atMost(Duration.ofMinutes(1)).untilAsserted(() -> assertThat(kafka.readCommittedBytes("araw")).hasSize(n));
        Set<String> positions = new HashSet<>();
        for (ConsumerRecord<byte[], byte[]> r : kafka.readCommittedBytes("araw")) {
          Object[] row = new Object[5];
          rawReader.decode(r.value(), 0, row);
          assertThat(positions.add(row[3] + "/" + row[4])).isTrue();
        }

        // bare Avro read back by a source given the derived schema inline (its columns default to the fields)
        Map<String, String> inline = new HashMap<>();
        inline.put("bootstrap.servers", kafka.bootstrap());
        inline.put("topic", "araw");
        inline.put("format", "avro");
        inline.put("avro.schema", AvroFormat.recordFor("araw", raw, new int[] {0, 1, 2, 3, 4}).toString().replace("_partition", "src_partition")
            .replace("_offset", "src_offset"));
        PlanBuilder back = new PlanBuilder("avro_back");
        back.source("kafka", "araw", inline).groupBy("auction").agg(Agg.count("bids"), Agg.max("price", "top")).materialize("avro_back");
        cluster.submit(back.build());
        await().atMost(Duration.ofMinutes(1)).untilAsserted(() -> {
          Map<Long, List<Long>> m = new TreeMap<>();
          cluster.scan("avro_back").forEach(r -> m.put((Long) r[0], List.of((Long) r[1], (Long) r[2])));
          assertThat(m).isEqualTo(expected);
        });

        // the two malformed records: skipped, counted in the source's state and exported
        MetaMetrics metrics = new MetaMetrics(cluster::meta, cluster.views());
        await().atMost(Duration.ofMinutes(1)).untilAsserted(() -> assertThat(metrics.scrape())
            .containsPattern("tide_source_skipped_records\\S*\\{[^}]*job=\"avro\"[^}]*\\} 2\\.0"));
      }
    }
  }

  /** start-position timestamp reads from the first record at or after the time; latest only what arrives after the start. */
  @Test
  void startPositionTimestampAndLatest(@TempDir Path dir) throws Exception {
    kafka.createTopic("late", 2);
    List<ProducerRecord<byte[], byte[]>> old = new ArrayList<>();
    for (int i = 0; i < 40; i++) {
      long ts = i < 20 ? 1_000_000L : 2_000_000L;
      old.add(new ProducerRecord<>("late", i % 2, ts, null, bid(i).getBytes(StandardCharsets.UTF_8)));
    }
    kafka.produceBytes(old);
    Map<String, String> fromTime = source("late");
    fromTime.put("start-position", "timestamp");
    fromTime.put("start-timestamp", "2000000");
    PlanBuilder t = new PlanBuilder("from_time");
    t.source("kafka", "late", fromTime).groupBy("auction").agg(Agg.count("n")).materialize("from_time");
    Map<String, String> latest = source("late");
    latest.put("start-position", "latest");
    PlanBuilder l = new PlanBuilder("from_latest");
    l.source("kafka", "late", latest).groupBy("auction").agg(Agg.count("n")).materialize("from_latest");
    try (LocalCluster cluster = new LocalCluster(dir, NexmarkEndToEndTest.fastBarriers(), 2, 2)) {
      cluster.submit(t.build());
      JobDefinition lj = cluster.submit(l.build());
      await().atMost(Duration.ofMinutes(1)).untilAsserted(() -> assertThat(count(cluster, "from_time")).isEqualTo(20));
      // the latest job has started once its offsets committed; what arrives then is counted
      long started = cluster.meta().stats().committedBarriers() + 5;
      await().atMost(Duration.ofMinutes(1)).until(() -> cluster.meta().stats().committedBarriers() >= started);
      assertThat(count(cluster, "from_latest")).isZero();
      List<String> fresh = new ArrayList<>();
      for (int i = 40; i < 50; i++) {
        fresh.add(bid(i));
      }
      kafka.produce("late", fresh, 2);
      // recovery reads the committed start offsets: resolving latest again would pass over the fresh bids
      cluster.crash(0);
      await().atMost(Duration.ofMinutes(1)).until(() -> cluster.meta().stats().recoveries() >= 1);
      await().atMost(Duration.ofMinutes(1)).untilAsserted(() -> {
        assertThat(count(cluster, "from_latest")).isEqualTo(10);
        assertThat(count(cluster, "from_time")).isEqualTo(30);
      });
      assertThat(lj.getName()).isEqualTo("from_latest");
    }
  }

  private static long count(LocalCluster cluster, String view) {
    return cluster.scan(view).stream().mapToLong(r -> (Long) r[1]).sum();
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
            .untilAsserted(() -> assertThat(own.readCommitted("outage_out"))
                .as(() -> "after the outage: " + cluster.meta().stats() + "; last events " + lastEvents(cluster)).hasSize(200));
      }
    }
  }

  /** The cluster's last few events (recoveries with their reasons), to explain a failed wait. */
  private static List<String> lastEvents(LocalCluster cluster) {
    List<String> all = cluster.meta().events().since(-1).stream().map(e -> e.kind() + " " + e.subject() + ": " + e.reason()).toList();
    return all.subList(Math.max(0, all.size() - 5), all.size());
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
