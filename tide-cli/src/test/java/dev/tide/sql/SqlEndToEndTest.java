package dev.tide.sql;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.tide.cluster.LocalCluster;
import dev.tide.cluster.SqlFrontend;
import dev.tide.common.config.Config;
import dev.tide.meta.MetaOptions;
import dev.tide.sql.NexmarkJobs;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;
import org.postgresql.util.PSQLException;

/**
 * SQL end to end: a running in-process cluster behind the PostgreSQL protocol server, driven by
 * pgjdbc and by the real psql binary. The Nexmark views created from the shipped SQL files hold the
 * same rows as the built-in jobs of the same names over the same events.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class SqlEndToEndTest {
  static final Map<String, String> OPTIONS = Map.of("events", "20000", "rate", "0", "seed", "7", "event-time-rate", "1000",
      "splits", "4");

  @TempDir
  static Path dir;
  private LocalCluster cluster;
  private PgServer server;
  private Connection conn;

  @BeforeAll
  void start() throws Exception {
    Config config = Config.defaults().with(MetaOptions.BARRIER_INTERVAL, Duration.ofMillis(100))
        .with(MetaOptions.SETTLE_DELAY, Duration.ofMillis(200));
    cluster = new LocalCluster(dir, config, 2, 2);
    server = SqlFrontend.start(cluster::meta, cluster.views(), config, Optional.empty(), "127.0.0.1", 0);
    conn = DriverManager.getConnection("jdbc:postgresql://127.0.0.1:" + server.port() + "/dev", "tide", "");
    String sources = resource("sources.sql");
    for (Map.Entry<String, String> e : OPTIONS.entrySet()) {
      sources = sources.replace("${" + e.getKey() + "}", e.getValue());
    }
    try (Statement s = conn.createStatement()) {
      s.execute(sources);
    }
  }

  @AfterAll
  void stop() throws SQLException {
    conn.close();
    server.close();
    cluster.close();
  }

  static String resource(String name) throws IOException {
    try (InputStream in = SqlEngine.class.getResourceAsStream("/nexmark/" + name)) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }

  private List<String> rows(String sql) throws SQLException {
    List<String> out = new ArrayList<>();
    try (Statement s = conn.createStatement(); ResultSet rs = s.executeQuery(sql)) {
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

  private void execute(String sql) throws SQLException {
    try (Statement s = conn.createStatement()) {
      s.execute(sql);
    }
  }

  private boolean done(String job) {
    return cluster.meta().jobs().containsKey(job) && cluster.sourcesDone(cluster.meta().jobs().get(job));
  }

  /**
   * A built-in job created by name ({@link NexmarkJobs}, what {@code tide ctl job create} runs) is the
   * shipped view: same columns, same rows (NexmarkEndToEndTest checks those rows against plain Java).
   */
  @Test
  void builtInJobsHoldWhatTheShippedViewsHold() throws Exception {
    cluster.submit(NexmarkJobs.plan("q0", OPTIONS));
    cluster.submit(NexmarkJobs.plan("q1", OPTIONS));
    cluster.submit(NexmarkJobs.plan("q2", OPTIONS));
    cluster.submit(NexmarkJobs.plan("q7", OPTIONS));
    cluster.submit(NexmarkJobs.plan("q5", OPTIONS));
    for (String q : List.of("q0", "q1", "q2", "q5", "q7")) {
      execute(resource(q + ".sql"));
    }
    Map<String, String> reference = Map.of(
        "nexmark_q0", "SELECT auction, bidder, price, date_time FROM q0",
        "nexmark_q1", "SELECT auction, bidder, price, date_time FROM q1",
        "nexmark_q2", "SELECT auction, price FROM q2",
        "nexmark_q5", "SELECT auction, num, starttime FROM q5",
        "nexmark_q7", "SELECT auction, price, bidder, date_time FROM q7");
    for (String job : List.of("q0", "q1", "q2", "q7", "q5", "nexmark_q0", "nexmark_q1", "nexmark_q2", "nexmark_q5", "nexmark_q7")) {
      await().atMost(Duration.ofMinutes(3)).pollInterval(Duration.ofMillis(200)).until(() -> done(job));
    }
    for (Map.Entry<String, String> e : new java.util.TreeMap<>(reference).entrySet()) {
      await().atMost(Duration.ofMinutes(1)).untilAsserted(() -> {
        List<String> expected = rows(e.getValue());
        assertThat(expected).as(e.getValue()).isNotEmpty();
        assertThat(rows("SELECT * FROM " + e.getKey())).as(e.getKey()).isEqualTo(expected);
      });
    }
    // q0 holds every bid; q2 a selection of them.
    assertThat(rows("SELECT count(*) FROM nexmark_q0")).containsExactly(String.valueOf(rows("SELECT auction FROM q0").size()));
    assertThat(rows("SELECT count(*) FROM nexmark_q2 WHERE MOD(auction, 123) <> 0")).containsExactly("0");
  }

  /** Grouped with its start, a window's end is computed from it (no key of its own): still the start plus the size. */
  @Test
  void aWindowEndGroupedWithItsStartIsTheStartPlusTheSize() throws Exception {
    execute("CREATE MATERIALIZED VIEW per_window AS SELECT auction, window_end, window_start, COUNT(*) AS n"
        + " FROM TABLE(HOP(TABLE bid, DESCRIPTOR(date_time), INTERVAL '2' SECOND, INTERVAL '10' SECOND))"
        + " GROUP BY auction, window_start, window_end");
    await().atMost(Duration.ofMinutes(3)).pollInterval(Duration.ofMillis(200)).until(() -> done("per_window"));
    await().atMost(Duration.ofMinutes(1)).until(() -> rows("SELECT count(*) FROM per_window").equals(
        rows("SELECT count(*) FROM (SELECT DISTINCT auction, window_start FROM per_window)")));
    assertThat(rows("SELECT count(*) FROM per_window WHERE window_end <> window_start + INTERVAL '10' SECOND"))
        .containsExactly("0");
    assertThat(rows("SELECT count(*) FROM per_window")).singleElement().isNotEqualTo("0");
  }

  @Test
  void viewExpressionsAgreeWithCalciteOverTheCommittedRows() throws Exception {
    execute("CREATE MATERIALIZED VIEW exprs AS SELECT auction, price, channel,"
        + " CASE WHEN price > 1000000 THEN 'high' WHEN price > 1000 THEN 'mid' ELSE 'low' END AS band,"
        + " UPPER(channel) AS up, LOWER(UPPER(channel)) AS low, CHAR_LENGTH(channel) AS len, COALESCE(extra, 'none') AS ex,"
        + " CAST(price AS DOUBLE) / 2 AS half, price * 2 + 1 AS odd, channel || '!' AS shout"
        + " FROM bid WHERE price % 7 <> 3 AND NOT (auction IN (1000, 1001))");
    await().atMost(Duration.ofMinutes(3)).pollInterval(Duration.ofMillis(200)).until(() -> done("exprs"));
    await().atMost(Duration.ofMinutes(1)).until(() -> !rows("SELECT * FROM exprs").isEmpty());
    assertThat(rows("SELECT count(*) FROM exprs WHERE band <> CASE WHEN price > 1000000 THEN 'high' WHEN price > 1000 THEN 'mid'"
        + " ELSE 'low' END OR up <> UPPER(channel) OR low <> LOWER(channel) OR len <> CHAR_LENGTH(channel) OR half <> price / 2.0"
        + " OR odd <> price * 2 + 1 OR shout <> channel || '!' OR MOD(price, 7) = 3 OR auction IN (1000, 1001) OR ex IS NULL"))
        .containsExactly("0");
    assertThat(rows("SELECT DISTINCT band FROM exprs")).contains("high", "low");
  }

  @Test
  void badStatementsAnswerSqlStateAndPositionAndCreateNothing() throws Exception {
    List<String> before = rows("SHOW MATERIALIZED VIEWS");
    assertError("CREATE MATERIALIZED VIEW bad1 AS SELECT auction FROM nosuch", "42P01", "nosuch", "nosuch");
    assertError("CREATE MATERIALIZED VIEW bad2 AS SELECT auction, nosuch FROM bid", "42703", "nosuch", "nosuch");
    assertError("SELECT nosuch FROM bid", "42703", "nosuch", "nosuch");
    assertError("SELEC 1", "42601", "SELEC", "syntax error");
    assertError("SELECT * FROM bid", "0A000", null, "not supported: SELECT from source 'bid', a stream");
    assertError("CREATE MATERIALIZED VIEW bad3 AS SELECT a.auction FROM bid a LEFT JOIN person p ON a.bidder = p.id AND a.price > 10",
        "0A000", "LEFT", "not supported: LEFT join whose ON has more than equalities");
    assertError("CREATE MATERIALIZED VIEW bad4 AS SELECT auction, RANK() OVER (PARTITION BY auction ORDER BY price) AS r FROM bid",
        "0A000", "OVER", "not supported: ROW_NUMBER(), RANK() or DENSE_RANK() OVER (...) without a rank limit");
    assertError("CREATE MATERIALIZED VIEW bad5 AS SELECT auction, SUM(DISTINCT price) FROM bid GROUP BY auction", "0A000", "DISTINCT",
        "not supported: DISTINCT in SUM");
    assertError("CREATE MATERIALIZED VIEW bad6 AS SELECT TO_CHAR(date_time, 'YYYY-Q-WW') FROM bid", "0A000", null, "WW");
    assertError("CREATE MATERIALIZED VIEW bad7 AS SELECT auction FROM bid ORDER BY auction", "0A000", "ORDER", "not supported: Sort");
    assertError("CREATE SOURCE s2 (auction BIGINT, nosuch BIGINT) WITH (connector = 'nexmark', nexmark.table.type = 'bid')", "42703",
        "nosuch", "has no column 'nosuch'");
    assertError("CREATE SOURCE s3 (price VARCHAR) WITH (connector = 'nexmark', nexmark.table.type = 'bid')", "42804", "price",
        "is bigint");
    assertError("CREATE SOURCE s4 WITH (connector = 'nexmark', nexmark.table.type = 'bid', nexmark.events = 'many')", "22023", null,
        "events");
    assertThat(rows("SHOW MATERIALIZED VIEWS")).isEqualTo(before);
    assertThat(rows("SHOW SOURCES")).noneMatch(r -> r.startsWith("s2|") || r.startsWith("s3|") || r.startsWith("s4|"));
  }

  /** {@code at}: the text the error points at (its first occurrence), null when it has no position. */
  private void assertError(String sql, String state, String at, String message) {
    int position = at == null ? 0 : sql.indexOf(at) + 1;
    assertThatThrownBy(() -> execute(sql)).isInstanceOfSatisfying(PSQLException.class, e -> {
      assertThat(e.getSQLState()).as(e.getMessage()).isEqualTo(state);
      assertThat(e.getServerErrorMessage().getPosition()).as(e.getMessage()).isEqualTo(position);
      assertThat(e.getMessage()).contains(message);
    });
  }

  @Test
  void showDescribeExplainAlterAndDrop() throws Exception {
    execute("CREATE SOURCE bids2 (auction BIGINT, price BIGINT, date_time TIMESTAMP) WITH (connector = 'nexmark',"
        + " nexmark.table.type = 'bid', nexmark.events = '-1', nexmark.rate = '500', nexmark.splits = '4')");
    execute("CREATE MATERIALIZED VIEW per_auction AS SELECT auction, COUNT(*) AS bids, MAX(price) AS top, AVG(price) AS mean"
        + " FROM bids2 WHERE price > 100 GROUP BY auction");
    assertThat(rows("SHOW SOURCES")).anyMatch(r -> r.startsWith("bids2|nexmark|bid|"));
    assertThat(rows("SHOW MATERIALIZED VIEWS")).anyMatch(r -> r.startsWith("per_auction|per_auction|CREATE MATERIALIZED VIEW"));
    assertThat(rows("DESCRIBE per_auction")).contains("auction|bigint|t|", "bids|bigint|f|", "mean|double|f|");
    assertThat(rows("DESCRIBE bids2")).containsExactly("auction|bigint|f|", "date_time|timestamp|f|", "price|bigint|f|");
    assertThat(String.join("\n", rows("EXPLAIN SELECT auction, COUNT(*) AS n FROM bids2 GROUP BY auction")))
        .contains("HASH_AGG", "Exchange HASH", "parallelism set when scheduled");
    assertThat(cluster.meta().jobs()).doesNotContainKey("explain");
    assertThat(String.join("\n", rows("EXPLAIN SELECT auction FROM bids2 WHERE auction % 123 = 0 AND price BETWEEN 1 AND 10")))
        .contains("FILTER");
    assertThatThrownBy(() -> execute("CREATE SOURCE bids2 WITH (connector = 'nexmark', nexmark.table.type = 'bid')"))
        .isInstanceOfSatisfying(PSQLException.class, e -> assertThat(e.getSQLState()).isEqualTo("42710"));
    execute("CREATE SOURCE IF NOT EXISTS bids2 WITH (connector = 'nexmark', nexmark.table.type = 'bid')");
    List<String> plan = rows("EXPLAIN per_auction");
    assertThat(String.join("\n", plan)).contains("SOURCE nexmark.bid", "HASH_AGG", "Exchange HASH", "state tables:", "actors on workers");

    await().atMost(Duration.ofMinutes(1)).until(() -> !rows("SELECT * FROM per_auction").isEmpty());
    // Parameters over the extended protocol; an ORDER BY and LIMIT over committed state.
    try (PreparedStatement ps = conn.prepareStatement("SELECT auction, bids FROM per_auction WHERE bids >= ? ORDER BY bids DESC LIMIT 3")) {
      ps.setLong(1, 1);
      try (ResultSet rs = ps.executeQuery()) {
        assertThat(rs.getMetaData().getColumnTypeName(1)).isEqualTo("int8");
        assertThat(rs.next()).isTrue();
      }
    }

    execute("ALTER MATERIALIZED VIEW per_auction SET PARALLELISM = 1");
    await().atMost(Duration.ofMinutes(1)).until(() -> String.join("\n", rows("EXPLAIN per_auction")).contains("1 actors on workers"));
    assertThatThrownBy(() -> execute("ALTER MATERIALIZED VIEW per_auction SET PARALLELISM = 0")).isInstanceOf(PSQLException.class);

    assertThatThrownBy(() -> execute("DROP SOURCE bids2")).isInstanceOfSatisfying(PSQLException.class,
        e -> assertThat(e.getSQLState()).isEqualTo("2BP01"));
    assertThat(cluster.meta().jobs()).containsKey("per_auction");
    execute("DROP SOURCE bids2 CASCADE");
    await().atMost(Duration.ofMinutes(1)).until(() -> !cluster.meta().jobs().containsKey("per_auction"));
    assertThat(rows("SHOW SOURCES")).noneMatch(r -> r.startsWith("bids2|"));
  }

  @Test
  void theClusterTokenIsThePasswordWhenOneIsSet() throws Exception {
    Config config = Config.defaults();
    try (PgServer guarded = SqlFrontend.start(cluster::meta, cluster.views(), config,
        Optional.of(dev.tide.common.auth.ClusterToken.of("s3cret-token-0123456789")), "127.0.0.1", 0)) {
      String url = "jdbc:postgresql://127.0.0.1:" + guarded.port() + "/dev";
      assertThatThrownBy(() -> DriverManager.getConnection(url, "tide", "wrong")).isInstanceOfSatisfying(PSQLException.class,
          e -> assertThat(e.getSQLState()).isEqualTo("28P01"));
      try (Connection c = DriverManager.getConnection(url, "tide", "s3cret-token-0123456789"); Statement st = c.createStatement();
          ResultSet rs = st.executeQuery("SELECT 1 + 1 AS two")) {
        assertThat(rs.next()).isTrue();
        assertThat(rs.getInt("two")).isEqualTo(2);
      }
    }
  }

  @Test
  void psqlRunsStatementsAndShowsErrorPositions() throws Exception {
    Path psql = Files.exists(Path.of("/usr/lib/postgresql/15/bin/psql")) ? Path.of("/usr/lib/postgresql/15/bin/psql") : Path.of("psql");
    execute("CREATE MATERIALIZED VIEW psql_view AS SELECT auction, price FROM bid WHERE price > 1000");
    await().atMost(Duration.ofMinutes(3)).until(() -> done("psql_view"));
    String ok = psql(psql, "SELECT count(*) AS n FROM psql_view");
    assertThat(ok).containsPattern("\\n\\s+\\d+\\n\\(1 row\\)");
    String shown = psql(psql, "SHOW MATERIALIZED VIEWS");
    assertThat(shown).contains("psql_view");
    String bad = psql(psql, "SELECT nosuch FROM psql_view");
    assertThat(bad).contains("ERROR:  unknown column").contains("LINE 1: SELECT nosuch FROM psql_view").contains("\n               ^");
  }

  private String psql(Path psql, String sql) throws Exception {
    Process p = new ProcessBuilder(psql.toString(), "-h", "127.0.0.1", "-p", String.valueOf(server.port()), "-d", "dev", "-U", "tide",
        "-c", sql).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(1, TimeUnit.MINUTES)).isTrue();
    return out;
  }
}
