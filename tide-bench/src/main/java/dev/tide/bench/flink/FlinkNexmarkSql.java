package dev.tide.bench.flink;

import dev.tide.bench.flink.FlinkNexmarkQueries.Feed;
import dev.tide.stream.nexmark.NexmarkConfig;
import java.util.Map;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.EnvironmentSettings;
import org.apache.flink.table.api.Schema;
import org.apache.flink.table.api.Table;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.types.Row;

/**
 * The Nexmark queries as the Nexmark benchmark runs them on Flink: its published SQL
 * (nexmark-flink's {@code queries/qN.sql}) on Flink's table planner, with the benchmark's planner
 * settings (mini-batch of 50,000 rows or 2 s, as its {@code flink-conf.yaml} sets), over the same
 * sources as the DataStream jobs ({@link Feed}: the same events, splits and generated columns), and
 * the changelog of the result into a {@link FingerprintSink}.
 *
 * <p>The tables {@code person}, {@code auction} and {@code bid} have the published column names;
 * {@code dateTime} is the source's event time (a rowtime attribute with the source's watermarks),
 * {@code expires} a timestamp, and {@code bid.rowId} is Tide's {@code _row_id}.
 *
 * <p>Adaptations: {@code dateTime} is quoted (a keyword of Flink 2's parser). Each other one makes
 * the result the query Tide's SQL definition computes (same columns, same types): q0 and q7 do not
 * select {@code extra} (as Tide's {@code nexmark/q0.sql} and {@code q7.sql}); q1 multiplies by the double {@code 0.908E0}, not the
 * decimal {@code 0.908}; q4 averages {@code CAST(final AS DOUBLE)}, as {@code AVG} of a {@code
 * BIGINT} is a {@code BIGINT} in Flink; q5 also selects the window start, as Tide's q5 does; q7's
 * bound is {@code dateTime - INTERVAL '9.999' SECOND} (the published {@code '10' SECOND} also takes
 * bids of the last millisecond of the window before).
 */
public final class FlinkNexmarkSql {
  private FlinkNexmarkSql() {}

  static final Map<String, String> QUERIES = Map.of(
      "q0", "SELECT auction, bidder, price, dateTime FROM bid",
      "q1", "SELECT auction, bidder, 0.908E0 * price AS price, dateTime FROM bid",
      "q2", "SELECT auction, price FROM bid WHERE MOD(auction, 123) = 0",
      "q3", """
          SELECT P.name, P.city, P.state, A.id
          FROM auction AS A INNER JOIN person AS P ON A.seller = P.id
          WHERE A.category = 10 AND (P.state = 'OR' OR P.state = 'ID' OR P.state = 'CA')""",
      "q4", """
          SELECT Q.category, AVG(CAST(Q.final AS DOUBLE))
          FROM (
            SELECT MAX(B.price) AS final, A.category
            FROM auction A, bid B
            WHERE A.id = B.auction AND B.dateTime BETWEEN A.dateTime AND A.expires
            GROUP BY A.id, A.category
          ) Q
          GROUP BY Q.category""",
      "q5", """
          SELECT AuctionBids.auction, AuctionBids.num, AuctionBids.starttime
          FROM (
            SELECT B1.auction, COUNT(*) AS num,
              HOP_START(B1.dateTime, INTERVAL '2' SECOND, INTERVAL '10' SECOND) AS starttime,
              HOP_END(B1.dateTime, INTERVAL '2' SECOND, INTERVAL '10' SECOND) AS endtime
            FROM bid B1
            GROUP BY B1.auction, HOP(B1.dateTime, INTERVAL '2' SECOND, INTERVAL '10' SECOND)
          ) AS AuctionBids
          JOIN (
            SELECT MAX(CountBids.num) AS maxn, CountBids.starttime, CountBids.endtime
            FROM (
              SELECT COUNT(*) AS num,
                HOP_START(B2.dateTime, INTERVAL '2' SECOND, INTERVAL '10' SECOND) AS starttime,
                HOP_END(B2.dateTime, INTERVAL '2' SECOND, INTERVAL '10' SECOND) AS endtime
              FROM bid B2
              GROUP BY B2.auction, HOP(B2.dateTime, INTERVAL '2' SECOND, INTERVAL '10' SECOND)
            ) AS CountBids
            GROUP BY CountBids.starttime, CountBids.endtime
          ) AS MaxBids
          ON AuctionBids.starttime = MaxBids.starttime AND AuctionBids.endtime = MaxBids.endtime
            AND AuctionBids.num >= MaxBids.maxn""",
      "q7", """
          SELECT B.auction, B.price, B.bidder, B.dateTime
          FROM bid B
          JOIN (
            SELECT MAX(B1.price) AS maxprice, TUMBLE_ROWTIME(B1.dateTime, INTERVAL '10' SECOND) AS dateTime
            FROM bid B1
            GROUP BY TUMBLE(B1.dateTime, INTERVAL '10' SECOND)
          ) B1
          ON B.price = B1.maxprice
          WHERE B.dateTime BETWEEN B1.dateTime - INTERVAL '9.999' SECOND AND B1.dateTime""",
      "q8", """
          SELECT P.id, P.name, P.starttime
          FROM (
            SELECT P.id, P.name,
              TUMBLE_START(P.dateTime, INTERVAL '10' SECOND) AS starttime,
              TUMBLE_END(P.dateTime, INTERVAL '10' SECOND) AS endtime
            FROM person P
            GROUP BY P.id, P.name, TUMBLE(P.dateTime, INTERVAL '10' SECOND)
          ) P
          JOIN (
            SELECT A.seller,
              TUMBLE_START(A.dateTime, INTERVAL '10' SECOND) AS starttime,
              TUMBLE_END(A.dateTime, INTERVAL '10' SECOND) AS endtime
            FROM auction A
            GROUP BY A.seller, TUMBLE(A.dateTime, INTERVAL '10' SECOND)
          ) A
          ON P.id = A.seller AND P.starttime = A.starttime AND P.endtime = A.endtime""");

  /** Adds query {@code query}'s SQL job to {@code env}, the changelog of its result into a {@link FingerprintSink} under {@code run}. */
  public static void build(String query, StreamExecutionEnvironment env, NexmarkConfig cfg, long events, int splits, String run) {
    String sql = QUERIES.get(query);
    if (sql == null) {
      throw new IllegalArgumentException("no Flink SQL for query '" + query + "'; known: " + new java.util.TreeSet<>(QUERIES.keySet()));
    }
    NexmarkSources.Columns columns = FlinkNexmarkQueries.columns(query);
    Feed feed = new Feed(env, cfg, events, splits, columns);
    StreamTableEnvironment t = StreamTableEnvironment.create(env, EnvironmentSettings.inStreamingMode());
    t.getConfig().set("table.exec.mini-batch.enabled", "true");
    t.getConfig().set("table.exec.mini-batch.allow-latency", "2 s");
    t.getConfig().set("table.exec.mini-batch.size", "50000");
    t.getConfig().set("table.optimizer.distinct-agg.split.enabled", "true");
    if (columns.person().length > 0) {
      view(t, "person", feed.persons(), "id, name, emailAddress, creditCard, city, state, rowtime AS dateTime, extra");
    }
    if (columns.auction().length > 0) {
      view(t, "auction", feed.auctions(), "id, itemName, description, initialBid, reserve, rowtime AS dateTime, "
          + "TO_TIMESTAMP_LTZ(expires, 3) AS expires, seller, category, extra");
    }
    if (columns.bid().length > 0) {
      view(t, "bid", feed.bids(), "auction, bidder, price, channel, url, rowtime AS dateTime, extra, rowId");
    }
    Table result = t.sqlQuery(quoteDateTime(sql));
    t.toChangelogStream(result).sinkTo(new FingerprintSink<>(run)).name("fingerprint");
  }

  /** {@code dateTime} is a keyword of Flink 2's SQL parser: the published queries' column is quoted. */
  private static String quoteDateTime(String sql) {
    return sql.replace("dateTime", "`dateTime`");
  }

  /** Registers {@code name} over {@code stream}: its event timestamps and watermarks as the rowtime {@code dateTime}. */
  private static <T> void view(StreamTableEnvironment t, String name, DataStream<T> stream, String select) {
    Table raw = t.fromDataStream(stream, Schema.newBuilder()
        .columnByMetadata("rowtime", "TIMESTAMP_LTZ(3)")
        .watermark("rowtime", "SOURCE_WATERMARK()")
        .build());
    t.createTemporaryView(name + "_stream", raw);
    t.createTemporaryView(name, t.sqlQuery("SELECT " + quoteDateTime(select) + " FROM " + name + "_stream"));
  }
}
