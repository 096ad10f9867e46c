package dev.tide.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tide.meta.store.PostgresCluster;
import dev.tide.proto.admin.CreateJobRequest;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@code tide ctl job create kafka-bids} on a process cluster ({@code tide meta} and two
 * {@code tide compute} JVMs) against an embedded broker: a compute process SIGKILLed while bids
 * flow and every sink actor stages and publishes at each barrier leaves no duplicate. A replayed
 * epoch would publish counts a second time, so each auction's published counts must rise strictly
 * (read_committed records of the upsert topic; every write of the PostgreSQL table, logged by a
 * trigger), and the last must equal the reference.
 */
class KafkaProcessTest {
  private static final List<String> FAST = List.of("--set", "barrier.interval=200ms", "--set", "heartbeat.interval=200ms",
      "--set", "heartbeat.timeout=3s", "--set", "scaling.settle-delay=1s");
  private static final int BIDS = 40_000;

  @ParameterizedTest
  @ValueSource(strings = {"kafka", "postgres"})
  void computeSigkilledMidRunLeavesNoDuplicate(String sink, @TempDir Path dir) throws Exception {
    try (EmbeddedKafka kafka = new EmbeddedKafka(); PostgresCluster postgres = PostgresCluster.start();
         ClusterProcesses cluster = new ClusterProcesses(dir, FAST)) {
      String db = postgres.createDatabase();
      try (Connection c = DriverManager.getConnection(db); Statement s = c.createStatement()) {
        s.execute("CREATE TABLE counts (auction bigint PRIMARY KEY, bids bigint, top bigint)");
        s.execute("CREATE TABLE writes (id bigserial PRIMARY KEY, auction bigint, bids bigint)");
        s.execute("CREATE FUNCTION log_write() RETURNS trigger AS $$ BEGIN INSERT INTO writes (auction, bids) "
            + "VALUES (NEW.auction, NEW.bids); RETURN NEW; END $$ LANGUAGE plpgsql");
        s.execute("CREATE TRIGGER log_write AFTER INSERT OR UPDATE ON counts FOR EACH ROW EXECUTE FUNCTION log_write()");
      }
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
      Map<String, String> sinkOptions = sink.equals("kafka")
          ? Map.of("connector", "kafka", "bootstrap.servers", kafka.bootstrap(), "topic", "pcounts", "mode", "upsert")
          : Map.of("connector", "postgres", "url", db, "table", "counts");
      cluster.jobs().create(CreateJobRequest.newBuilder().setQuery("kafka-bids")
          .putAllSourceOptions(Map.of("bootstrap.servers", kafka.bootstrap(), "topic", "pbids"))
          .putAllSinkOptions(sinkOptions).build());
      await().atMost(Duration.ofMinutes(2)).ignoreExceptions().until(() -> !published(sink, kafka, db).isEmpty());
      kafka.produce("pbids", bids.subList(BIDS / 4, BIDS), 4);
      victim.kill(); // SIGKILL while the sinks stage and publish an epoch at every barrier
      await().atMost(Duration.ofMinutes(2)).ignoreExceptions().until(() -> cluster.status().getRecoveries() >= 1);

      Map<Long, List<Long>> expected = KafkaConnectorsTest.reference(BIDS);
      Map<Long, Long> expectedCounts = new HashMap<>();
      expected.forEach((a, v) -> expectedCounts.put(a, v.get(0)));
      await().atMost(Duration.ofMinutes(3)).pollInterval(Duration.ofSeconds(1)).ignoreExceptions()
          .untilAsserted(() -> assertThat(last(published(sink, kafka, db))).isEqualTo(expectedCounts));
      Map<Long, Long> seen = new HashMap<>();
      for (long[] w : published(sink, kafka, db)) {
        Long before = seen.put(w[0], w[1]);
        assertThat(before == null || w[1] > before).as("auction %d: count %d published after %s (a republished epoch repeats counts)",
            w[0], w[1], before).isTrue();
      }
      assertThat(cluster.scan("kafka_bids")).hasSize(expected.size());
    }
  }

  /** (auction, count) in the order the sink published them. */
  private static List<long[]> published(String sink, EmbeddedKafka kafka, String db) throws Exception {
    List<long[]> out = new ArrayList<>();
    if (sink.equals("kafka")) {
      for (ConsumerRecord<String, String> r : kafka.readCommitted("pcounts")) {
        out.add(new long[] {Long.parseLong(r.value().replaceAll(".*\"auction\":(\\d+).*", "$1")),
            Long.parseLong(r.value().replaceAll(".*\"bids\":(\\d+).*", "$1"))});
      }
    } else {
      try (Connection c = DriverManager.getConnection(db); Statement s = c.createStatement();
           ResultSet rs = s.executeQuery("SELECT auction, bids FROM writes ORDER BY id")) {
        while (rs.next()) {
          out.add(new long[] {rs.getLong(1), rs.getLong(2)});
        }
      }
    }
    return out;
  }

  private static Map<Long, Long> last(List<long[]> writes) {
    Map<Long, Long> m = new HashMap<>();
    writes.forEach(w -> m.put(w[0], w[1]));
    return m;
  }
}
