package dev.tide.sql;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.tide.cluster.LocalCluster;
import dev.tide.cluster.SqlFrontend;
import dev.tide.common.config.Config;
import dev.tide.meta.MetaOptions;
import dev.tide.stream.nexmark.NexmarkConfig;
import dev.tide.stream.nexmark.NexmarkGenerator;
import dev.tide.stream.nexmark.NexmarkTable;
import dev.tide.stream.source.NexmarkSourceOptions;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Tables: CREATE TABLE, INSERT, UPDATE, DELETE, SELECT and SHOW TABLES, and views that read a table and join
 * it with a stream while rows are inserted and deleted; results equal references computed from the
 * generator's events and the table's final rows.
 */
class SqlTablesTest {
  static final long EVENTS = 30_000;
  static final long SEED = 5;

  @TempDir
  Path dir;

  @Test
  void viewsReadAndJoinATableWhileItChanges() throws Exception {
    Config config = Config.defaults().with(MetaOptions.BARRIER_INTERVAL, Duration.ofMillis(100))
        .with(MetaOptions.SETTLE_DELAY, Duration.ofMillis(200));
    try (LocalCluster cluster = new LocalCluster(dir, config, 2, 2);
        PgServer server = SqlFrontend.start(cluster::meta, cluster.views(), config, Optional.empty(), "127.0.0.1", 0);
        Connection c = DriverManager.getConnection("jdbc:postgresql://127.0.0.1:" + server.port() + "/dev", "tide", "")) {
      execute(c, "CREATE TABLE channel_names (channel VARCHAR PRIMARY KEY, label VARCHAR NOT NULL, weight BIGINT)");
      assertThat(update(c, "INSERT INTO channel_names VALUES ('Google', 'search', 1), ('Facebook', 'social', 2),"
          + " ('Baidu', 'search', 3), ('Apple', 'device', 4)")).isEqualTo(4);
      assertThat(rows(c, "SELECT channel, label, weight FROM channel_names"))
          .containsExactly("Apple|device|4", "Baidu|search|3", "Facebook|social|2", "Google|search|1");
      assertThat(rows(c, "SHOW TABLES")).hasSize(1).allMatch(r -> r.startsWith("channel_names|CREATE TABLE"));

      // Bad writes change nothing.
      assertThatThrownBy(() -> execute(c, "INSERT INTO channel_names VALUES ('Zoom', 'video', 9), ('Apple', 'fruit', 5)"))
          .isInstanceOf(SQLException.class).satisfies(e -> assertThat(((SQLException) e).getSQLState()).isEqualTo("23505"));
      assertThatThrownBy(() -> execute(c, "INSERT INTO channel_names (channel, weight) VALUES ('Zoom', 'many')"))
          .isInstanceOf(SQLException.class).satisfies(e -> assertThat(((SQLException) e).getSQLState()).isEqualTo("42804"));
      assertThatThrownBy(() -> execute(c, "INSERT INTO channel_names (channel, colour) VALUES ('Zoom', 'red')"))
          .isInstanceOf(SQLException.class).satisfies(e -> assertThat(((SQLException) e).getSQLState()).isEqualTo("42703"));
      assertThatThrownBy(() -> execute(c, "CREATE TABLE nokey (a BIGINT)")).isInstanceOf(SQLException.class)
          .satisfies(e -> assertThat(((SQLException) e).getSQLState()).isEqualTo("0A000"));
      assertThat(rows(c, "SELECT COUNT(*) FROM channel_names")).containsExactly("4");

      execute(c, "CREATE SOURCE bid WITH (connector = 'nexmark', nexmark.table.type = 'bid', nexmark.events = '" + EVENTS
          + "', nexmark.rate = '3000', nexmark.seed = '" + SEED + "', nexmark.splits = '4')");
      execute(c, "CREATE MATERIALIZED VIEW bids_per_label AS SELECT n.label, COUNT(*) AS bids, SUM(n.weight) AS weight"
          + " FROM bid AS b JOIN channel_names AS n ON b.channel = n.channel GROUP BY n.label");
      execute(c, "CREATE MATERIALIZED VIEW labels AS SELECT label, COUNT(*) AS channels FROM channel_names GROUP BY label");
      await().atMost(Duration.ofMinutes(1)).until(() -> !rows(c, "SELECT label FROM bids_per_label").isEmpty());

      // Changes while the join runs: a channel changes label, one leaves, one comes.
      assertThat(update(c, "DELETE FROM channel_names WHERE channel = 'Apple' OR weight = 2")).isEqualTo(2);
      assertThat(update(c, "INSERT INTO channel_names (channel, label, weight) VALUES ('Apple', 'search', 5)")).isEqualTo(1);
      assertThat(update(c, "UPDATE channel_names SET weight = weight * 10 WHERE label = 'search'")).isEqualTo(3);
      assertThatThrownBy(() -> execute(c, "UPDATE channel_names SET channel = 'Google' WHERE channel = 'Baidu'"))
          .isInstanceOf(SQLException.class).satisfies(e -> assertThat(((SQLException) e).getSQLState()).isEqualTo("23505"));
      execute(c, "ALTER MATERIALIZED VIEW bids_per_label SET PARALLELISM = 1");
      assertThat(update(c, "DELETE FROM channel_names WHERE channel = 'nobody'")).isZero();

      await().atMost(Duration.ofMinutes(2)).pollInterval(Duration.ofMillis(200))
          .until(() -> cluster.sourcesDone(cluster.meta().jobs().get("bids_per_label")));
      Map<String, String> label = Map.of("Google", "search", "Baidu", "search", "Apple", "search");
      Map<String, Long> weight = Map.of("Google", 10L, "Baidu", 30L, "Apple", 50L);
      TreeMap<String, long[]> expected = new TreeMap<>();
      NexmarkGenerator g = new NexmarkGenerator(NexmarkConfig.defaults().withSeed(SEED)
          .withEventsPerSecond(NexmarkSourceOptions.EVENT_TIME_RATE.defaultValue()));
      int channel = NexmarkTable.BID.schema().indexOf("channel");
      for (long o = 0; o < NexmarkGenerator.ordinalsBelow(NexmarkTable.BID, EVENTS); o++) {
        String ch = (String) g.row(NexmarkTable.BID, o)[channel];
        if (label.containsKey(ch)) {
          long[] v = expected.computeIfAbsent(label.get(ch), k -> new long[2]);
          v[0]++;
          v[1] += weight.get(ch);
        }
      }
      List<String> want = new ArrayList<>();
      expected.forEach((l, v) -> want.add(l + "|" + v[0] + "|" + v[1]));
      assertThat(want).isNotEmpty();
      await().atMost(Duration.ofMinutes(1)).untilAsserted(() -> {
        assertThat(rows(c, "SELECT label, bids, weight FROM bids_per_label")).isEqualTo(want);
        assertThat(rows(c, "SELECT label, channels FROM labels")).containsExactly("search|3");
      });

      assertThatThrownBy(() -> execute(c, "DROP TABLE channel_names")).isInstanceOf(SQLException.class)
          .satisfies(e -> assertThat(((SQLException) e).getSQLState()).isEqualTo("2BP01"));
      assertThatThrownBy(() -> execute(c, "DROP MATERIALIZED VIEW channel_names")).isInstanceOf(SQLException.class)
          .hasMessageContaining("is a table");
      execute(c, "DROP TABLE channel_names CASCADE");
      assertThat(rows(c, "SHOW TABLES")).isEmpty();
      await().atMost(Duration.ofMinutes(1)).until(() -> cluster.meta().jobs().isEmpty()); // jobs stop at the next barrier
      assertThat(rows(c, "SHOW MATERIALIZED VIEWS")).isEmpty();
    }
  }

  @Test
  void psqlCreatesWritesAndReadsATableAndAViewOverIt() throws Exception {
    Config config = Config.defaults().with(MetaOptions.BARRIER_INTERVAL, Duration.ofMillis(100));
    try (LocalCluster cluster = new LocalCluster(dir, config, 1, 2);
        PgServer server = SqlFrontend.start(cluster::meta, cluster.views(), config, Optional.empty(), "127.0.0.1", 0)) {
      String out = psql(server, "CREATE TABLE regions (id BIGINT PRIMARY KEY, name VARCHAR);"
          + " INSERT INTO regions VALUES (1, 'north'), (2, 'south'), (3, 'east');"
          + " DELETE FROM regions WHERE name = 'south';"
          + " UPDATE regions SET name = UPPER(name) WHERE id = 3;"
          + " CREATE MATERIALIZED VIEW region_names AS SELECT name FROM regions WHERE id > 1;"
          + " SELECT id, name FROM regions ORDER BY id; SHOW TABLES");
      assertThat(out).contains("CREATE TABLE", "INSERT 0 3", "DELETE 1", "UPDATE 1", "CREATE MATERIALIZED VIEW")
          .contains(" 1 | north", " 3 | EAST").doesNotContain("south")
          .contains("regions | CREATE TABLE regions (id BIGINT PRIMARY KEY, name VARCHAR)");
      await().atMost(Duration.ofMinutes(1)).until(() -> psql(server, "SELECT name FROM region_names").contains(" EAST\n(1 row)"));
      String bad = psql(server, "INSERT INTO regions VALUES (3, 'west')");
      assertThat(bad).contains("ERROR:  insert into 'regions' refused: a row with key [3] exists");
      String wrong = psql(server, "INSERT INTO regions (id, nosuch) VALUES (4, 'x')");
      assertThat(wrong).contains("ERROR:  insert into 'regions' refused: no column 'nosuch'").contains("^");

      // psql's describe commands read pg_catalog; Tide answers them from its catalog.
      assertThat(psql(server, "\\d")).containsPattern("Schema \\| +Name +\\| +Type +\\| Owner")
          .containsPattern(" public \\| region_names \\| materialized view \\| tide\n").containsPattern(" public \\| regions +\\| table +\\| tide\n")
          .contains("(2 rows)");
      assertThat(psql(server, "\\dt")).containsPattern(" public \\| regions \\| table \\| tide\n").contains("(1 row)");
      assertThat(psql(server, "\\dm")).contains(" region_names ").doesNotContain(" regions ");
      assertThat(psql(server, "\\d regions")).contains("Table \"public.regions\"")
          .containsPattern(" id +\\| bigint +\\| +\\| not null \\|").containsPattern(" name +\\| varchar +\\| +\\| +\\|");
      assertThat(psql(server, "\\d region_names")).contains("Materialized view \"public.region_names\"").containsPattern(" name +\\| varchar");
      assertThat(psql(server, "\\d nosuch")).contains("Did not find any relation named \"nosuch\".");
      psql(server, "CREATE SOURCE person (id BIGINT, name VARCHAR, date_time TIMESTAMP) WITH (connector = 'nexmark',"
          + " nexmark.table.type = 'person', nexmark.events = '100')");
      assertThat(psql(server, "\\d person")).contains("Foreign table \"public.person\"", "Server: nexmark")
          .contains("FDW options: (events '100')").containsPattern(" id +\\| bigint");
    }
  }

  private static String psql(PgServer server, String sql) throws Exception {
    Path psql = java.nio.file.Files.exists(Path.of("/usr/lib/postgresql/15/bin/psql")) ? Path.of("/usr/lib/postgresql/15/bin/psql")
        : Path.of("psql");
    Process p = new ProcessBuilder(psql.toString(), "-h", "127.0.0.1", "-p", String.valueOf(server.port()), "-d", "dev", "-U", "tide",
        "-c", sql).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
    assertThat(p.waitFor(1, java.util.concurrent.TimeUnit.MINUTES)).isTrue();
    return out;
  }

  private static void execute(Connection c, String sql) throws SQLException {
    try (Statement s = c.createStatement()) {
      s.execute(sql);
    }
  }

  private static int update(Connection c, String sql) throws SQLException {
    try (Statement s = c.createStatement()) {
      return s.executeUpdate(sql);
    }
  }

  private static List<String> rows(Connection c, String sql) throws SQLException {
    List<String> out = new ArrayList<>();
    try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
      int n = rs.getMetaData().getColumnCount();
      while (rs.next()) {
        StringBuilder b = new StringBuilder();
        for (int i = 1; i <= n; i++) {
          b.append(i > 1 ? "|" : "").append(rs.getString(i));
        }
        out.add(b.toString());
      }
    }
    Collections.sort(out);
    return out;
  }
}
