package dev.tide.sql;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.tide.cluster.EmbeddedKafka;
import dev.tide.cluster.LocalCluster;
import dev.tide.cluster.SqlFrontend;
import dev.tide.common.config.Config;
import dev.tide.meta.MetaOptions;
import dev.tide.meta.store.PostgresCluster;
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
import java.util.Optional;
import java.util.TreeMap;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.postgresql.util.PSQLException;

/**
 * CREATE SOURCE ... WITH (connector = 'kafka') and CREATE SINK ... WITH (connector = 'kafka' |
 * 'postgres') through pgjdbc, against an embedded KRaft broker and a throwaway PostgreSQL: bids
 * from a topic counted per auction in a view, the view's rows sunk to an upsert topic and a table;
 * each equals the reference. Bad options are refused with the connector's message and change nothing.
 */
class KafkaSqlTest {
  private static final int BIDS = 3_000;
  private static final int AUCTIONS = 40;

  static String bid(int i) {
    return "{\"auction\":" + (i % AUCTIONS) + ",\"bidder\":" + (i * 7 % 1000) + ",\"price\":" + ((i * 31) % 997)
        + ",\"date_time\":" + (1_700_000_000_000L + i) + "}";
  }

  static Map<Long, List<Long>> reference() {
    Map<Long, List<Long>> m = new TreeMap<>();
    for (int i = 0; i < BIDS; i++) {
      m.merge((long) (i % AUCTIONS), List.of(1L, (long) ((i * 31) % 997)), (x, y) -> List.of(x.get(0) + 1, Math.max(x.get(1), y.get(1))));
    }
    return m;
  }

  @Test
  void kafkaSourceViewAndSinksThroughSql(@TempDir Path dir) throws Exception {
    try (EmbeddedKafka kafka = new EmbeddedKafka(); PostgresCluster pg = PostgresCluster.start()) {
      kafka.createTopic("sbids", 2);
      kafka.createTopic("scounts", 1);
      kafka.createTopic("sdirect", 1);
      List<String> bids = new ArrayList<>();
      for (int i = 0; i < BIDS; i++) {
        bids.add(bid(i));
      }
      kafka.produce("sbids", bids, 2);
      String db = pg.createDatabase();
      try (Connection c = DriverManager.getConnection(db); Statement s = c.createStatement()) {
        s.execute("CREATE TABLE counts (auction bigint PRIMARY KEY, bids bigint, top bigint)");
      }
      Config config = Config.defaults().with(MetaOptions.BARRIER_INTERVAL, Duration.ofMillis(100))
          .with(MetaOptions.SETTLE_DELAY, Duration.ofMillis(200));
      try (LocalCluster cluster = new LocalCluster(dir, config, 1, 2);
           PgServer server = SqlFrontend.start(cluster::meta, cluster.views(), config, Optional.empty(), "127.0.0.1", 0);
           Connection conn = DriverManager.getConnection("jdbc:postgresql://127.0.0.1:" + server.port() + "/dev", "tide", "");
           Statement s = conn.createStatement()) {
        String broker = "properties.bootstrap.server = '" + kafka.bootstrap() + "'";
        assertThatThrownBy(() -> s.execute("CREATE SOURCE bids (auction bigint) WITH (connector = 'kafka', topic = 'sbids', " + broker
            + ", on-error = 'ignore')")).isInstanceOf(PSQLException.class).hasMessageContaining("on-error").hasMessageContaining("'ignore'")
            .hasMessageContaining("fail or skip");
        assertThatThrownBy(() -> s.execute("CREATE SOURCE bids WITH (connector = 'kafka', topic = 'sbids', " + broker + ")"))
            .hasMessageContaining("option 'columns' is required").hasMessageContaining("declare them: CREATE SOURCE bids (name type, ...)");
        assertThatThrownBy(() -> s.execute("CREATE SOURCE bids (auction money) WITH (connector = 'kafka', topic = 'sbids', " + broker + ")"))
            .hasMessageContaining("column 'auction' has type 'money'");
        assertThatThrownBy(() -> s.execute("CREATE SOURCE bids (auction bigint) WITH (connector = 'kafka', topic = 'sbids', " + broker
            + ", format = 'avro')")).hasMessageContaining("exactly one of option 'avro.schema'");
        assertThat(rows(s, "SHOW SOURCES")).isEmpty();

        s.execute("CREATE SOURCE bids (auction bigint, bidder bigint, price bigint, date_time timestamp,"
            + " WATERMARK FOR date_time AS date_time - INTERVAL '1' SECOND)"
            + " WITH (connector = 'kafka', topic = 'sbids', " + broker + ", format = 'json', splits = '2', scan.startup.mode = 'earliest')");
        s.execute("CREATE MATERIALIZED VIEW counts AS SELECT auction, COUNT(*) AS bids, MAX(price) AS top FROM bids GROUP BY auction");

        assertThatThrownBy(() -> s.execute("CREATE SINK k FROM counts WITH (connector = 'kafka', " + broker
            + ", topic = 'scounts', mode = 'merge')")).hasMessageContaining("create sink 'k' refused").hasMessageContaining("'merge'")
            .hasMessageContaining("append-only or upsert");
        assertThatThrownBy(() -> s.execute("CREATE SINK k FROM nowhere WITH (connector = 'kafka', " + broker + ", topic = 'scounts')"))
            .hasMessageContaining("'nowhere' is no materialized view");
        assertThat(rows(s, "SHOW SINKS")).isEmpty();

        s.execute("CREATE SINK counts_kafka FROM counts WITH (connector = 'kafka', " + broker + ", topic = 'scounts', mode = 'upsert')");
        s.execute("CREATE SINK counts_pg FROM counts WITH (connector = 'postgres', url = '" + db + "', table = 'counts')");
        // A sink of its own query (no view): the aggregation runs in the sink's job, over the topic.
        s.execute("CREATE SINK counts_direct AS SELECT auction, COUNT(*) AS bids, MAX(price) AS top FROM bids GROUP BY auction"
            + " WITH (connector = 'kafka', " + broker + ", topic = 'sdirect', mode = 'upsert')");
        assertThatThrownBy(() -> s.execute("CREATE SINK k AS SELECT auction FROM bids")).hasMessageContaining("needs WITH (connector");
        assertThat(rows(s, "SHOW SINKS")).extracting(r -> r.get(0)).containsExactly("counts_direct", "counts_kafka", "counts_pg");
        // A sink follows its view (committed rows, then the changelog): it does not read the topic and aggregate again.
        for (String sink : List.of("counts_kafka", "counts_pg")) {
          assertThat(cluster.meta().snapshot().jobs().get(sink).definition().getFragmentsList().stream()
              .flatMap(f -> f.getNodesList().stream()).filter(n -> n.hasSource()).map(n -> n.getSource().getConnector()).toList())
              .as(sink).containsExactly("view");
        }

        Map<Long, List<Long>> expected = reference();
        await().atMost(Duration.ofMinutes(2)).pollInterval(Duration.ofMillis(500)).untilAsserted(() -> {
          Map<Long, List<Long>> view = new TreeMap<>();
          for (List<String> r : rows(s, "SELECT auction, bids, top FROM counts")) {
            view.put(Long.parseLong(r.get(0)), List.of(Long.parseLong(r.get(1)), Long.parseLong(r.get(2))));
          }
          assertThat(view).isEqualTo(expected);
          assertThat(table(db)).isEqualTo(expected);
          assertThat(upserts(kafka.readCommitted("scounts"))).isEqualTo(expected);
          assertThat(upserts(kafka.readCommitted("sdirect"))).isEqualTo(expected);
        });
        assertThatThrownBy(() -> s.execute("DROP SOURCE bids")).hasMessageContaining("counts_direct");
        s.execute("DROP SINK counts_pg");
        s.execute("DROP SINK counts_direct");
        assertThat(rows(s, "SHOW SINKS")).extracting(r -> r.get(0)).containsExactly("counts_kafka");
      }
    }
  }

  private static List<List<String>> rows(Statement s, String sql) throws Exception {
    List<List<String>> out = new ArrayList<>();
    try (ResultSet rs = s.executeQuery(sql)) {
      while (rs.next()) {
        List<String> r = new ArrayList<>();
        for (int i = 1; i <= rs.getMetaData().getColumnCount(); i++) {
          r.add(rs.getString(i));
        }
        out.add(r);
      }
    }
    return out;
  }

  private static Map<Long, List<Long>> table(String db) throws Exception {
    Map<Long, List<Long>> m = new TreeMap<>();
    try (Connection c = DriverManager.getConnection(db); Statement s = c.createStatement();
         ResultSet rs = s.executeQuery("SELECT auction, bids, top FROM counts")) {
      while (rs.next()) {
        m.put(rs.getLong(1), List.of(rs.getLong(2), rs.getLong(3)));
      }
    }
    return m;
  }

  private static Map<Long, List<Long>> upserts(List<ConsumerRecord<String, String>> records) {
    Map<String, String> byKey = new HashMap<>();
    for (ConsumerRecord<String, String> r : records) {
      if (r.value() == null) {
        byKey.remove(r.key());
      } else {
        byKey.put(r.key(), r.value());
      }
    }
    Map<Long, List<Long>> m = new TreeMap<>();
    byKey.values().forEach(v -> m.put(Long.parseLong(v.replaceAll(".*\"auction\":(\\d+).*", "$1")),
        List.of(Long.parseLong(v.replaceAll(".*\"bids\":(\\d+).*", "$1")), Long.parseLong(v.replaceAll(".*\"top\":(\\d+).*", "$1")))));
    return m;
  }
}
