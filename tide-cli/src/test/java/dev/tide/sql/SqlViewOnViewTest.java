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
 * Views over views: a view created while its upstream view runs backfills from the upstream's
 * committed rows and then follows its changes; both are rescaled online, the downstream is paused
 * and resumed, a compute node crashes, and the results equal references computed directly from the
 * same Nexmark events.
 */
class SqlViewOnViewTest {
  static final long EVENTS = 40_000;
  static final long SEED = 11;

  @TempDir
  Path dir;

  @Test
  void aViewOverARunningViewFollowsItThroughRescalesAPauseAndACrash() throws Exception {
    Config config = Config.defaults().with(MetaOptions.BARRIER_INTERVAL, Duration.ofMillis(100))
        .with(MetaOptions.SETTLE_DELAY, Duration.ofMillis(200));
    try (LocalCluster cluster = new LocalCluster(dir, config, 2, 2);
        PgServer server = SqlFrontend.start(cluster::meta, cluster.views(), config, Optional.empty(), "127.0.0.1", 0);
        Connection c = DriverManager.getConnection("jdbc:postgresql://127.0.0.1:" + server.port() + "/dev", "tide", "")) {
      execute(c, "CREATE SOURCE bid WITH (connector = 'nexmark', nexmark.table.type = 'bid', nexmark.events = '" + EVENTS
          + "', nexmark.rate = '4000', nexmark.seed = '" + SEED + "', nexmark.splits = '4')");
      execute(c, "CREATE MATERIALIZED VIEW per_auction AS SELECT auction, COUNT(*) AS bids, MAX(price) AS top FROM bid GROUP BY auction");
      await().atMost(Duration.ofMinutes(1)).until(() -> rows(c, "SELECT auction FROM per_auction").size() > 10);

      // Created while per_auction runs: snapshot first, then its changes (updates of counts move auctions between bins).
      execute(c, "CREATE MATERIALIZED VIEW histogram AS SELECT bids, COUNT(*) AS auctions FROM per_auction GROUP BY bids");
      execute(c, "CREATE MATERIALIZED VIEW busy AS SELECT auction, top FROM per_auction WHERE bids >= 5");
      assertThat(cluster.sourcesDone(cluster.meta().jobs().get("per_auction"))).as("created while its upstream runs").isFalse();
      assertThat(rows(c, "EXPLAIN histogram")).anyMatch(l -> l.contains("SOURCE view per_auction (its committed rows, then its changelog;"));
      assertThat(rows(c, "EXPLAIN per_auction")).anyMatch(l -> l.contains("(per_auction.changelog)"));

      execute(c, "ALTER MATERIALIZED VIEW per_auction SET PARALLELISM = 1");
      execute(c, "ALTER MATERIALIZED VIEW histogram SET PARALLELISM = 3");
      cluster.meta().setPaused("busy", true);
      long seen = rows(c, "SELECT auction FROM per_auction").size();
      await().atMost(Duration.ofMinutes(1)).until(() -> rows(c, "SELECT auction FROM per_auction").size() > seen);
      execute(c, "ALTER MATERIALIZED VIEW per_auction SET PARALLELISM = 3");
      cluster.meta().setPaused("busy", false);
      execute(c, "ALTER MATERIALIZED VIEW busy SET PARALLELISM = 2");
      // A compute node dies mid-stream: recovery restarts every job from the last committed epoch,
      // the view sources from their committed offsets.
      long before = rows(c, "SELECT auction FROM per_auction").size();
      cluster.crash(0);
      cluster.addNode(2);
      await().atMost(Duration.ofMinutes(1)).ignoreExceptions().until(() -> rows(c, "SELECT auction FROM per_auction").size() > before);

      await().atMost(Duration.ofMinutes(2)).pollInterval(Duration.ofMillis(200))
          .until(() -> cluster.sourcesDone(cluster.meta().jobs().get("per_auction")));
      Map<Long, long[]> perAuction = reference();
      TreeMap<Long, Long> histogram = new TreeMap<>();
      List<String> busy = new ArrayList<>();
      perAuction.forEach((auction, countTop) -> {
        histogram.merge(countTop[0], 1L, Long::sum);
        if (countTop[0] >= 5) {
          busy.add(auction + "|" + countTop[1]);
        }
      });
      List<String> expectedHistogram = new ArrayList<>();
      histogram.forEach((bids, auctions) -> expectedHistogram.add(bids + "|" + auctions));
      Collections.sort(expectedHistogram);
      Collections.sort(busy);
      await().atMost(Duration.ofMinutes(1)).untilAsserted(() -> {
        assertThat(rows(c, "SELECT bids, auctions FROM histogram")).isEqualTo(expectedHistogram);
        assertThat(rows(c, "SELECT auction, top FROM busy")).isEqualTo(busy);
      });
      assertThat(rows(c, "SELECT COUNT(*) FROM per_auction")).containsExactly(String.valueOf(perAuction.size()));

      // Dependents guard their upstream; CASCADE drops them with it.
      assertThatThrownBy(() -> execute(c, "DROP MATERIALIZED VIEW per_auction")).isInstanceOf(SQLException.class)
          .satisfies(e -> assertThat(((SQLException) e).getSQLState()).isEqualTo("2BP01"))
          .hasMessageContaining("[busy, histogram]");
      assertThat(rows(c, "SHOW MATERIALIZED VIEWS")).hasSize(3);
      execute(c, "DROP MATERIALIZED VIEW per_auction CASCADE");
      await().atMost(Duration.ofMinutes(1)).until(() -> cluster.meta().jobs().isEmpty());
      assertThat(rows(c, "SHOW MATERIALIZED VIEWS")).isEmpty();
    }
  }

  /** Bids per auction and the top price, computed from the generator: auction -> {count, max price}. */
  private static Map<Long, long[]> reference() {
    NexmarkGenerator g = new NexmarkGenerator(NexmarkConfig.defaults().withSeed(SEED)
        .withEventsPerSecond(NexmarkSourceOptions.EVENT_TIME_RATE.defaultValue()));
    int auction = NexmarkTable.BID.schema().indexOf("auction");
    int price = NexmarkTable.BID.schema().indexOf("price");
    Map<Long, long[]> out = new TreeMap<>();
    for (long o = 0; o < NexmarkGenerator.ordinalsBelow(NexmarkTable.BID, EVENTS); o++) {
      Object[] row = g.row(NexmarkTable.BID, o);
      long[] v = out.computeIfAbsent((Long) row[auction], k -> new long[] {0, Long.MIN_VALUE});
      v[0]++;
      v[1] = Math.max(v[1], (Long) row[price]);
    }
    return out;
  }

  private static void execute(Connection c, String sql) throws SQLException {
    try (Statement s = c.createStatement()) {
      s.execute(sql);
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
