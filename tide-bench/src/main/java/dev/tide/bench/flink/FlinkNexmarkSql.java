package dev.tide.bench.flink;

import dev.tide.bench.flink.FlinkNexmarkQueries.Feed;
import dev.tide.stream.nexmark.NexmarkConfig;
import java.time.ZoneOffset;
import java.util.Map;
import java.util.Set;
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
 * bids of the last millisecond of the window before). From q9 on:
 *
 * <ul>
 *   <li>q9 orders a winning bid's equals (same price and time) by {@code rowId}, the least first,
 *       as Tide's top-N breaks ties on the bid's row id (its {@code nexmark/q9.sql} says so);
 *   <li>q12 windows by {@code dateTime}, not {@code PROCTIME()}, as Tide's q12 (processing time is
 *       not reproducible);
 *   <li>q14 computes the Nexmark benchmark's {@code count_char(extra, 'c')} UDF as Tide's q14 does,
 *       {@code CHAR_LENGTH(extra) - CHAR_LENGTH(REPLACE(extra, 'c', ''))}, and multiplies by the
 *       double {@code 0.908E0}, as q1;
 *   <li>q17 averages {@code CAST(price AS DOUBLE)}, as q4;
 *   <li>q18 orders a (bidder, auction)'s bids of the same time by {@code rowId}, the least first:
 *       the published query plans as Flink's deduplication, which keeps the pair's bid that arrives
 *       last, so differs from Tide where a pair's bids share a millisecond; with the tie-break it
 *       plans as a top-1 rank;
 *   <li>q19 orders an auction's bids of the same price by {@code rowId}, the least first, and selects
 *       the columns of {@code *} but {@code rowId};
 *   <li>q22's {@code SPLIT_INDEX(url, '/', n)} is {@code COALESCE}d to {@code ''}, as Tide's {@code
 *       SPLIT_PART} gives {@code ''} past the last part where Flink gives NULL (the generator's urls
 *       have four parts: {@code dir2} and {@code dir3} are always {@code ''}).
 * </ul>
 *
 * <p>q10, q11, q15, q16, q20 and q21 are the published SQL: Flink has the {@code DATE_FORMAT},
 * {@code SESSION} group window and {@code REGEXP_EXTRACT} Tide's files translate, and its {@code
 * HOUR} (q14) is Tide's {@code EXTRACT(HOUR FROM ...)}. The session time zone is UTC, the zone of
 * Tide's {@code TO_CHAR}, {@code EXTRACT} and window bounds. q6 has no SQL here: Flink's OVER window
 * refuses its input, the retracting result of the winning-bid aggregation; q13 is no built-in query
 * of Tide.
 */
public final class FlinkNexmarkSql {
  private FlinkNexmarkSql() {}

  static final Map<String, String> QUERIES = Map.ofEntries(
      Map.entry("q0", "SELECT auction, bidder, price, dateTime FROM bid"),
      Map.entry("q1", "SELECT auction, bidder, 0.908E0 * price AS price, dateTime FROM bid"),
      Map.entry("q2", "SELECT auction, price FROM bid WHERE MOD(auction, 123) = 0"),
      Map.entry("q3", """
          SELECT P.name, P.city, P.state, A.id
          FROM auction AS A INNER JOIN person AS P ON A.seller = P.id
          WHERE A.category = 10 AND (P.state = 'OR' OR P.state = 'ID' OR P.state = 'CA')"""),
      Map.entry("q4", """
          SELECT Q.category, AVG(CAST(Q.final AS DOUBLE))
          FROM (
            SELECT MAX(B.price) AS final, A.category
            FROM auction A, bid B
            WHERE A.id = B.auction AND B.dateTime BETWEEN A.dateTime AND A.expires
            GROUP BY A.id, A.category
          ) Q
          GROUP BY Q.category"""),
      Map.entry("q5", """
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
            AND AuctionBids.num >= MaxBids.maxn"""),
      Map.entry("q7", """
          SELECT B.auction, B.price, B.bidder, B.dateTime
          FROM bid B
          JOIN (
            SELECT MAX(B1.price) AS maxprice, TUMBLE_ROWTIME(B1.dateTime, INTERVAL '10' SECOND) AS dateTime
            FROM bid B1
            GROUP BY TUMBLE(B1.dateTime, INTERVAL '10' SECOND)
          ) B1
          ON B.price = B1.maxprice
          WHERE B.dateTime BETWEEN B1.dateTime - INTERVAL '9.999' SECOND AND B1.dateTime"""),
      Map.entry("q8", """
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
          ON P.id = A.seller AND P.starttime = A.starttime AND P.endtime = A.endtime"""),
      Map.entry("q9", """
          SELECT id, itemName, description, initialBid, reserve, dateTime, expires, seller, category, extra,
            auction, bidder, price, bid_dateTime, bid_extra
          FROM (
            SELECT A.*, B.auction, B.bidder, B.price, B.dateTime AS bid_dateTime, B.extra AS bid_extra,
              ROW_NUMBER() OVER (PARTITION BY A.id ORDER BY B.price DESC, B.dateTime ASC, B.rowId ASC) AS rownum
            FROM auction A, bid B
            WHERE A.id = B.auction AND B.dateTime BETWEEN A.dateTime AND A.expires
          )
          WHERE rownum <= 1"""),
      Map.entry("q10", """
          SELECT auction, bidder, price, dateTime, extra, DATE_FORMAT(dateTime, 'yyyy-MM-dd'), DATE_FORMAT(dateTime, 'HH:mm')
          FROM bid"""),
      Map.entry("q11", """
          SELECT B.bidder, COUNT(*) AS bid_count,
            SESSION_START(B.dateTime, INTERVAL '10' SECOND) AS starttime,
            SESSION_END(B.dateTime, INTERVAL '10' SECOND) AS endtime
          FROM bid B
          GROUP BY B.bidder, SESSION(B.dateTime, INTERVAL '10' SECOND)"""),
      Map.entry("q12", """
          SELECT B.bidder, COUNT(*) AS bid_count,
            TUMBLE_START(B.dateTime, INTERVAL '10' SECOND) AS starttime,
            TUMBLE_END(B.dateTime, INTERVAL '10' SECOND) AS endtime
          FROM bid B
          GROUP BY B.bidder, TUMBLE(B.dateTime, INTERVAL '10' SECOND)"""),
      Map.entry("q14", """
          SELECT auction, bidder, 0.908E0 * price AS price,
            CASE
              WHEN HOUR(dateTime) >= 8 AND HOUR(dateTime) <= 18 THEN 'dayTime'
              WHEN HOUR(dateTime) <= 6 OR HOUR(dateTime) >= 20 THEN 'nightTime'
              ELSE 'otherTime'
            END AS bidTimeType,
            dateTime, extra, CHAR_LENGTH(extra) - CHAR_LENGTH(REPLACE(extra, 'c', '')) AS c_counts
          FROM bid
          WHERE 0.908E0 * price > 1000000 AND 0.908E0 * price < 50000000"""),
      Map.entry("q15", """
          SELECT
            DATE_FORMAT(dateTime, 'yyyy-MM-dd') AS `day`,
            COUNT(*) AS total_bids,
            COUNT(*) FILTER (WHERE price < 10000) AS rank1_bids,
            COUNT(*) FILTER (WHERE price >= 10000 AND price < 1000000) AS rank2_bids,
            COUNT(*) FILTER (WHERE price >= 1000000) AS rank3_bids,
            COUNT(DISTINCT bidder) AS total_bidders,
            COUNT(DISTINCT bidder) FILTER (WHERE price < 10000) AS rank1_bidders,
            COUNT(DISTINCT bidder) FILTER (WHERE price >= 10000 AND price < 1000000) AS rank2_bidders,
            COUNT(DISTINCT bidder) FILTER (WHERE price >= 1000000) AS rank3_bidders,
            COUNT(DISTINCT auction) AS total_auctions,
            COUNT(DISTINCT auction) FILTER (WHERE price < 10000) AS rank1_auctions,
            COUNT(DISTINCT auction) FILTER (WHERE price >= 10000 AND price < 1000000) AS rank2_auctions,
            COUNT(DISTINCT auction) FILTER (WHERE price >= 1000000) AS rank3_auctions
          FROM bid
          GROUP BY DATE_FORMAT(dateTime, 'yyyy-MM-dd')"""),
      Map.entry("q16", """
          SELECT
            channel,
            DATE_FORMAT(dateTime, 'yyyy-MM-dd') AS `day`,
            MAX(DATE_FORMAT(dateTime, 'HH:mm')) AS `minute`,
            COUNT(*) AS total_bids,
            COUNT(*) FILTER (WHERE price < 10000) AS rank1_bids,
            COUNT(*) FILTER (WHERE price >= 10000 AND price < 1000000) AS rank2_bids,
            COUNT(*) FILTER (WHERE price >= 1000000) AS rank3_bids,
            COUNT(DISTINCT bidder) AS total_bidders,
            COUNT(DISTINCT bidder) FILTER (WHERE price < 10000) AS rank1_bidders,
            COUNT(DISTINCT bidder) FILTER (WHERE price >= 10000 AND price < 1000000) AS rank2_bidders,
            COUNT(DISTINCT bidder) FILTER (WHERE price >= 1000000) AS rank3_bidders,
            COUNT(DISTINCT auction) AS total_auctions,
            COUNT(DISTINCT auction) FILTER (WHERE price < 10000) AS rank1_auctions,
            COUNT(DISTINCT auction) FILTER (WHERE price >= 10000 AND price < 1000000) AS rank2_auctions,
            COUNT(DISTINCT auction) FILTER (WHERE price >= 1000000) AS rank3_auctions
          FROM bid
          GROUP BY channel, DATE_FORMAT(dateTime, 'yyyy-MM-dd')"""),
      Map.entry("q17", """
          SELECT
            auction,
            DATE_FORMAT(dateTime, 'yyyy-MM-dd') AS `day`,
            COUNT(*) AS total_bids,
            COUNT(*) FILTER (WHERE price < 10000) AS rank1_bids,
            COUNT(*) FILTER (WHERE price >= 10000 AND price < 1000000) AS rank2_bids,
            COUNT(*) FILTER (WHERE price >= 1000000) AS rank3_bids,
            MIN(price) AS min_price,
            MAX(price) AS max_price,
            AVG(CAST(price AS DOUBLE)) AS avg_price,
            SUM(price) AS sum_price
          FROM bid
          GROUP BY auction, DATE_FORMAT(dateTime, 'yyyy-MM-dd')"""),
      Map.entry("q18", """
          SELECT auction, bidder, price, channel, url, dateTime, extra
          FROM (
            SELECT *, ROW_NUMBER() OVER (PARTITION BY bidder, auction ORDER BY dateTime DESC, rowId ASC) AS rank_number
            FROM bid
          )
          WHERE rank_number <= 1"""),
      Map.entry("q19", """
          SELECT auction, bidder, price, channel, url, dateTime, extra, rank_number
          FROM (
            SELECT *, ROW_NUMBER() OVER (PARTITION BY auction ORDER BY price DESC, rowId ASC) AS rank_number
            FROM bid
          )
          WHERE rank_number <= 10"""),
      Map.entry("q20", """
          SELECT
            auction, bidder, price, channel, url, B.dateTime, B.extra,
            itemName, description, initialBid, reserve, A.dateTime, expires, seller, category, A.extra
          FROM bid AS B INNER JOIN auction AS A ON B.auction = A.id
          WHERE A.category = 10"""),
      Map.entry("q21", """
          SELECT
            auction, bidder, price, channel,
            CASE
              WHEN LOWER(channel) = 'apple' THEN '0'
              WHEN LOWER(channel) = 'google' THEN '1'
              WHEN LOWER(channel) = 'facebook' THEN '2'
              WHEN LOWER(channel) = 'baidu' THEN '3'
              ELSE REGEXP_EXTRACT(url, '(&|^)channel_id=([^&]*)', 2)
            END AS channel_id
          FROM bid
          WHERE REGEXP_EXTRACT(url, '(&|^)channel_id=([^&]*)', 2) IS NOT NULL
            OR LOWER(channel) IN ('apple', 'google', 'facebook', 'baidu')"""),
      Map.entry("q22", """
          SELECT
            auction, bidder, price, channel,
            COALESCE(SPLIT_INDEX(url, '/', 3), '') AS dir1,
            COALESCE(SPLIT_INDEX(url, '/', 4), '') AS dir2,
            COALESCE(SPLIT_INDEX(url, '/', 5), '') AS dir3
          FROM bid"""));

  /** The queries with SQL here, in query order. */
  public static Set<String> queries() {
    return FlinkNexmarkQueries.inQueryOrder(QUERIES.keySet());
  }

  /** Adds query {@code query}'s SQL job to {@code env}, the changelog of its result into a {@link FingerprintSink} under {@code run}. */
  public static void build(String query, StreamExecutionEnvironment env, NexmarkConfig cfg, long events, int splits, String run) {
    String sql = QUERIES.get(query);
    if (sql == null) {
      throw new IllegalArgumentException("no Flink SQL for query '" + query + "'; known: " + queries());
    }
    NexmarkSources.Columns columns = FlinkNexmarkQueries.columns(query);
    Feed feed = new Feed(env, cfg, events, splits, columns);
    StreamTableEnvironment t = StreamTableEnvironment.create(env, EnvironmentSettings.inStreamingMode());
    t.getConfig().set("table.exec.mini-batch.enabled", "true");
    t.getConfig().set("table.exec.mini-batch.allow-latency", "2 s");
    t.getConfig().set("table.exec.mini-batch.size", "50000");
    t.getConfig().set("table.optimizer.distinct-agg.split.enabled", "true");
    // Window bounds (TIMESTAMP) and DATE_FORMAT/HOUR of the TIMESTAMP_LTZ dateTime are in this zone; Tide's are in UTC.
    t.getConfig().setLocalTimeZone(ZoneOffset.UTC);
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
    return sql.replaceAll("\\bdateTime\\b", "`dateTime`");
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
