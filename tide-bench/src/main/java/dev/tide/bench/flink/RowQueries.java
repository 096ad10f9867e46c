package dev.tide.bench.flink;

import dev.tide.bench.flink.FlinkNexmarkQueries.Feed;
import dev.tide.bench.flink.NexmarkEvents.Bid;
import java.time.LocalDate;
import java.util.Locale;
import org.apache.flink.api.common.functions.FlatMapFunction;
import org.apache.flink.api.common.functions.MapFunction;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.java.tuple.Tuple5;
import org.apache.flink.api.java.tuple.Tuple7;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.util.Collector;

/**
 * The Nexmark queries that map each bid on its own (q10, q14, q21, q22) as DataStream jobs: one
 * function chained to the source, no state, no shuffle. Each computes the values of Tide's SQL
 * definition ({@code nexmark/qN.sql}) without the general machinery a SQL engine needs: dates are
 * formatted in UTC from the epoch milliseconds (the text of the last day and minute kept), the url's
 * parameter and parts are found by scanning it (no regular expression, no split into an array).
 */
final class RowQueries {
  static final long DAY_MS = 86_400_000L;
  static final long HOUR_MS = 3_600_000L;
  static final long MINUTE_MS = 60_000L;

  private RowQueries() {}

  /** q10: {@code (auction, bidder, price, date_time, extra, yyyy-MM-dd, HH:mm)} of every bid. */
  static DataStream<Tuple7<Long, Long, Long, Long, String, String, String>> q10(Feed feed) {
    return feed.bids().map(new Q10())
        .returns(Types.TUPLE(Types.LONG, Types.LONG, Types.LONG, Types.LONG, Types.STRING, Types.STRING, Types.STRING));
  }

  static final class Q10 implements MapFunction<Bid, Tuple7<Long, Long, Long, Long, String, String, String>> {
    private static final long serialVersionUID = 1L;
    private final DateTexts dates = new DateTexts();

    @Override
    public Tuple7<Long, Long, Long, Long, String, String, String> map(Bid b) {
      return Tuple7.of(b.auction, b.bidder, b.price, b.dateTime, b.extra, dates.day(b.dateTime), dates.minute(b.dateTime));
    }
  }

  /**
   * q14: bids whose price in euros is between 1,000,000 and 50,000,000 (exclusive), as
   * {@code (auction, bidder, 0.908 * price, time of day, date_time, extra, count of 'c' in extra)};
   * the time of day is {@code dayTime} for hours 8 to 18 (UTC), {@code nightTime} for hours up to 6
   * and from 20, else {@code otherTime}.
   */
  static DataStream<Tuple7<Long, Long, Double, String, Long, String, Long>> q14(Feed feed) {
    return feed.bids().flatMap(new Q14())
        .returns(Types.TUPLE(Types.LONG, Types.LONG, Types.DOUBLE, Types.STRING, Types.LONG, Types.STRING, Types.LONG));
  }

  static final class Q14 implements FlatMapFunction<Bid, Tuple7<Long, Long, Double, String, Long, String, Long>> {
    private static final long serialVersionUID = 1L;

    @Override
    public void flatMap(Bid b, Collector<Tuple7<Long, Long, Double, String, Long, String, Long>> out) {
      double euros = 0.908 * b.price;
      if (euros > 1_000_000 && euros < 50_000_000) {
        long hour = Math.floorMod(b.dateTime, DAY_MS) / HOUR_MS;
        String type = hour >= 8 && hour <= 18 ? "dayTime" : hour <= 6 || hour >= 20 ? "nightTime" : "otherTime";
        out.collect(Tuple7.of(b.auction, b.bidder, euros, type, b.dateTime, b.extra, countChar(b.extra, 'c')));
      }
    }
  }

  static long countChar(String s, char c) {
    long n = 0;
    for (int i = 0; i < s.length(); i++) {
      if (s.charAt(i) == c) {
        n++;
      }
    }
    return n;
  }

  /**
   * q21: {@code (auction, bidder, price, channel, channel_id)} of the bids whose channel is one of
   * four known names (case-insensitive; its id is 0 to 3) or whose url has a {@code channel_id}
   * parameter (its value is the id).
   */
  static DataStream<Tuple5<Long, Long, Long, String, String>> q21(Feed feed) {
    return feed.bids().flatMap(new Q21()).returns(Types.TUPLE(Types.LONG, Types.LONG, Types.LONG, Types.STRING, Types.STRING));
  }

  static final class Q21 implements FlatMapFunction<Bid, Tuple5<Long, Long, Long, String, String>> {
    private static final long serialVersionUID = 1L;

    @Override
    public void flatMap(Bid b, Collector<Tuple5<Long, Long, Long, String, String>> out) {
      String id = switch (b.channel.toLowerCase(Locale.ROOT)) {
        case "apple" -> "0";
        case "google" -> "1";
        case "facebook" -> "2";
        case "baidu" -> "3";
        default -> channelIdParameter(b.url);
      };
      if (id != null) {
        out.collect(Tuple5.of(b.auction, b.bidder, b.price, b.channel, id));
      }
    }
  }

  private static final String CHANNEL_ID = "channel_id=";

  /**
   * {@code REGEXP_EXTRACT(url, '(&|^)channel_id=([^&]*)', 2)}: the value of the first {@code
   * channel_id=} at the start of the url or after an {@code &}, up to the next {@code &}; null if none.
   */
  static String channelIdParameter(String url) {
    for (int at = url.indexOf(CHANNEL_ID); at >= 0; at = url.indexOf(CHANNEL_ID, at + 1)) {
      if (at == 0 || url.charAt(at - 1) == '&') {
        int from = at + CHANNEL_ID.length();
        int end = url.indexOf('&', from);
        return url.substring(from, end < 0 ? url.length() : end);
      }
    }
    return null;
  }

  /** q22: {@code (auction, bidder, price, channel, dir1, dir2, dir3)}, the url's 4th to 6th {@code /}-separated parts. */
  static DataStream<Tuple7<Long, Long, Long, String, String, String, String>> q22(Feed feed) {
    return feed.bids().map(new Q22())
        .returns(Types.TUPLE(Types.LONG, Types.LONG, Types.LONG, Types.STRING, Types.STRING, Types.STRING, Types.STRING));
  }

  static final class Q22 implements MapFunction<Bid, Tuple7<Long, Long, Long, String, String, String, String>> {
    private static final long serialVersionUID = 1L;

    @Override
    public Tuple7<Long, Long, Long, String, String, String, String> map(Bid b) {
      String u = b.url;
      int p3 = nthSlash(u, 3); // parts are numbered from 1: part n starts after slash n-1
      int p4 = p3 < 0 ? -1 : u.indexOf('/', p3 + 1);
      int p5 = p4 < 0 ? -1 : u.indexOf('/', p4 + 1);
      int p6 = p5 < 0 ? -1 : u.indexOf('/', p5 + 1);
      return Tuple7.of(b.auction, b.bidder, b.price, b.channel, part(u, p3, p4), part(u, p4, p5), part(u, p5, p6));
    }
  }

  /** The index of the n-th {@code /} of {@code s} (n >= 1), or -1. */
  private static int nthSlash(String s, int n) {
    int at = -1;
    for (int i = 0; i < n; i++) {
      at = s.indexOf('/', at + 1);
      if (at < 0) {
        return -1;
      }
    }
    return at;
  }

  /** {@code SPLIT_PART}: the text after the slash at {@code start} up to the slash at {@code end} (or the end); '' if no slash at start. */
  private static String part(String s, int start, int end) {
    return start < 0 ? "" : s.substring(start + 1, end < 0 ? s.length() : end);
  }

  /**
   * Tide's {@code TO_CHAR(ts, 'YYYY-MM-DD')} and {@code TO_CHAR(ts, 'HH24:MI')} of epoch
   * milliseconds in UTC, the texts of the last day and minute kept (bids come in time order). Not
   * thread-safe: one per function instance.
   */
  static final class DateTexts implements java.io.Serializable {
    private static final long serialVersionUID = 1L;
    private transient long day = Long.MIN_VALUE;
    private transient String dayText;
    private transient long minute = Long.MIN_VALUE;
    private transient String minuteText;

    String day(long ts) {
      long d = Math.floorDiv(ts, DAY_MS);
      if (d != day || dayText == null) {
        day = d;
        dayText = LocalDate.ofEpochDay(d).toString();
      }
      return dayText;
    }

    String minute(long ts) {
      long m = Math.floorDiv(ts, MINUTE_MS);
      if (m != minute || minuteText == null) {
        minute = m;
        int ofDay = (int) Math.floorMod(m, DAY_MS / MINUTE_MS);
        int h = ofDay / 60;
        int mi = ofDay % 60;
        minuteText = new String(new char[] {(char) ('0' + h / 10), (char) ('0' + h % 10), ':', (char) ('0' + mi / 10),
            (char) ('0' + mi % 10)});
      }
      return minuteText;
    }
  }
}
