package dev.tide.sql;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.tide.cluster.LocalCluster;
import dev.tide.cluster.SqlFrontend;
import dev.tide.common.config.Config;
import dev.tide.meta.MetaOptions;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * SQL catalog objects are durable in the meta store: after a meta restart sources are still there
 * (listed, guarded by the views that read them, readable by new views), views answer the same rows,
 * and a view over a view keeps following it.
 */
class SqlMetaRestartTest {
  @TempDir
  Path dir;

  @Test
  void aSqlViewSurvivesAMetaRestart() throws Exception {
    Config config = Config.defaults().with(MetaOptions.BARRIER_INTERVAL, Duration.ofMillis(100))
        .with(MetaOptions.SETTLE_DELAY, Duration.ofMillis(200));
    try (LocalCluster cluster = new LocalCluster(dir, config, 2, 2);
        PgServer server = SqlFrontend.start(cluster::meta, cluster.views(), config, Optional.empty(), "127.0.0.1", 0);
        Connection c = DriverManager.getConnection("jdbc:postgresql://127.0.0.1:" + server.port() + "/dev", "tide", "")) {
      execute(c, "CREATE SOURCE bid WITH (connector = 'nexmark', nexmark.table.type = 'bid', nexmark.events = '5000',"
          + " nexmark.rate = '0', nexmark.splits = '2')");
      execute(c, "CREATE MATERIALIZED VIEW per_channel AS SELECT channel, COUNT(*) AS bids FROM bid GROUP BY channel");
      await().atMost(Duration.ofMinutes(2)).pollInterval(Duration.ofMillis(200))
          .until(() -> cluster.sourcesDone(cluster.meta().jobs().get("per_channel")));
      await().atMost(Duration.ofMinutes(1)).until(() -> count(c) > 0);
      long before = count(c);
      // A view over the view: it follows per_channel from its catalog entry and its own offsets.
      execute(c, "CREATE MATERIALIZED VIEW busy_channels AS SELECT channel, bids FROM per_channel WHERE bids > 0");
      execute(c, "CREATE TABLE regions (id BIGINT PRIMARY KEY, name VARCHAR)");
      execute(c, "INSERT INTO regions VALUES (1, 'north'), (2, 'south')");
      execute(c, "CREATE MATERIALIZED VIEW region_names AS SELECT name FROM regions");
      await().atMost(Duration.ofMinutes(1)).until(() -> sum(c, "busy_channels") == before);

      cluster.restartMeta();

      await().atMost(Duration.ofMinutes(1)).ignoreExceptions().until(() -> count(c) == before);
      await().atMost(Duration.ofMinutes(1)).ignoreExceptions().until(() -> sum(c, "busy_channels") == before);
      // The table keeps its rows and takes writes; the view over it follows them.
      assertThat(rows(c, "SELECT id, name FROM regions")).containsExactly("1|north", "2|south");
      execute(c, "INSERT INTO regions VALUES (3, 'east')");
      execute(c, "DELETE FROM regions WHERE id = 1");
      await().atMost(Duration.ofMinutes(1)).until(() -> rows(c, "SELECT name FROM region_names").equals(List.of("east", "south")));
      assertThat(rows(c, "SHOW TABLES")).hasSize(1);
      // ... and views over views created after the restart read the restored catalog.
      execute(c, "CREATE MATERIALIZED VIEW channel_total AS SELECT SUM(bids) AS total FROM busy_channels");
      await().atMost(Duration.ofMinutes(1)).until(() -> sum(c, "channel_total", "total") == before);
      try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SHOW MATERIALIZED VIEWS")) {
        assertThat(rs.next()).isTrue();
        assertThat(rs.getString("name")).isEqualTo("busy_channels");
        assertThat(rs.next()).isTrue();
        assertThat(rs.getString("name")).isEqualTo("channel_total");
        assertThat(rs.next()).isTrue();
        assertThat(rs.getString("name")).isEqualTo("per_channel");
        assertThat(rs.getString("definition")).startsWith("CREATE MATERIALIZED VIEW per_channel AS");
        assertThat(rs.next()).isTrue();
        assertThat(rs.getString("name")).isEqualTo("region_names");
      }
      // The source is in the meta store too: it is listed, guarded by its view, and new views read it.
      try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SHOW SOURCES")) {
        assertThat(rs.next()).isTrue();
        assertThat(rs.getString("name")).isEqualTo("bid");
        assertThat(rs.next()).isFalse();
      }
      assertThatThrownBy(() -> execute(c, "DROP SOURCE bid")).isInstanceOf(SQLException.class)
          .satisfies(e -> assertThat(((SQLException) e).getSQLState()).isEqualTo("2BP01"));
      execute(c, "CREATE MATERIALIZED VIEW big_bids AS SELECT auction, price FROM bid WHERE price > 1000");
      await().atMost(Duration.ofMinutes(2)).pollInterval(Duration.ofMillis(200))
          .until(() -> cluster.sourcesDone(cluster.meta().jobs().get("big_bids")));
      await().atMost(Duration.ofMinutes(1)).until(() -> {
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT COUNT(*) FROM big_bids")) {
          rs.next();
          return rs.getLong(1) > 0;
        }
      });
    }
  }

  private static void execute(Connection c, String sql) throws SQLException {
    try (Statement s = c.createStatement()) {
      s.execute(sql);
    }
  }

  private static long sum(Connection c, String view) throws SQLException {
    return sum(c, view, "bids");
  }

  private static long sum(Connection c, String view, String column) throws SQLException {
    try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT COALESCE(SUM(" + column + "), 0) FROM " + view)) {
      rs.next();
      return rs.getLong(1);
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
    java.util.Collections.sort(out);
    return out;
  }

  /** The bids the view counted, over all channels. */
  private static long count(Connection c) throws SQLException {
    try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT COALESCE(SUM(bids), 0) AS n FROM per_channel")) {
      rs.next();
      return rs.getLong(1);
    }
  }
}
