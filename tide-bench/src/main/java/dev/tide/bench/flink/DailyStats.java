package dev.tide.bench.flink;

import dev.tide.bench.flink.FlinkNexmarkQueries.Feed;
import dev.tide.bench.flink.NexmarkEvents.Bid;
import java.time.Duration;
import org.apache.flink.api.common.functions.AggregateFunction;
import org.apache.flink.api.common.functions.ReduceFunction;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.java.tuple.Tuple10;
import org.apache.flink.api.java.tuple.Tuple13;
import org.apache.flink.api.java.tuple.Tuple15;
import org.apache.flink.api.java.tuple.Tuple2;
import org.apache.flink.api.java.tuple.Tuple3;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.WindowedStream;
import org.apache.flink.streaming.api.functions.windowing.ProcessWindowFunction;
import org.apache.flink.streaming.api.windowing.assigners.TumblingEventTimeWindows;
import org.apache.flink.streaming.api.windowing.windows.TimeWindow;
import org.apache.flink.util.Collector;

/**
 * The daily bid statistics (q15 per day, q16 per channel and day, q17 per auction and day) as
 * DataStream jobs: one-day event-time tumbling windows (UTC days, as Tide's {@code TO_CHAR(date_time,
 * 'YYYY-MM-DD')}), each group's row emitted once, when the watermark closes its day. A bid's price
 * rank is 1 below 10,000, 2 below 1,000,000, else 3.
 *
 * <p>q15 and q16 count distinct bidders and auctions of a group, a handful of hot groups (one per
 * day, or four channels a day): keyed by the group alone, every bid would go to one or four
 * subtasks. So they aggregate in two stages, as Flink's SQL planner splits a distinct aggregation:
 * per (group, bidder) and day the bid counts by rank and whether the bidder bid in each rank, per
 * (group, auction) and day whether the auction had bids in each rank (parts, {@link #PART}, emitted
 * when the day closes); then per group and day the sum of those parts.
 */
final class DailyStats {
  static final long DAY_MS = RowQueries.DAY_MS;
  private static final TumblingEventTimeWindows DAYS = TumblingEventTimeWindows.of(Duration.ofMillis(DAY_MS));

  /** A part's values, and the statistics' order: bids, bidders, auctions (each total, rank 1, 2, 3), the latest bid time. */
  static final int BIDS = 0;
  static final int BIDDERS = 4;
  static final int AUCTIONS = 8;
  static final int LATEST = 12;
  static final int WIDTH = 13;

  private DailyStats() {}

  static int rank(long price) {
    return price < 10_000 ? 1 : price < 1_000_000 ? 2 : 3;
  }

  /** One bidder's or auction's share of a group's day: (group, day start, values at {@link #BIDS} ... {@link #LATEST}). */
  private static final TypeInformation<Tuple3<String, Long, long[]>> PART =
      Types.TUPLE(Types.STRING, Types.LONG, Types.PRIMITIVE_ARRAY(Types.LONG));
  private static final TypeInformation<Tuple2<String, Long>> KEY = Types.TUPLE(Types.STRING, Types.LONG);

  /** q15: per day, {@code (day, bids, bids of rank 1, 2, 3, bidders, of rank 1, 2, 3, auctions, of rank 1, 2, 3)}. */
  static DataStream<Tuple13<String, Long, Long, Long, Long, Long, Long, Long, Long, Long, Long, Long, Long>> q15(Feed feed) {
    return totals(feed, b -> "").reduce(new SumParts(), new Q15Row()).returns(Types.TUPLE(Types.STRING, Types.LONG, Types.LONG, Types.LONG,
        Types.LONG, Types.LONG, Types.LONG, Types.LONG, Types.LONG, Types.LONG, Types.LONG, Types.LONG, Types.LONG));
  }

  /** q16: per channel and day, {@code (channel, day, latest HH:mm, then q15's counts)}. */
  static DataStream<Tuple15<String, String, String, Long, Long, Long, Long, Long, Long, Long, Long, Long, Long, Long, Long>> q16(
      Feed feed) {
    return totals(feed, b -> b.channel).reduce(new SumParts(), new Q16Row()).returns(Types.TUPLE(Types.STRING, Types.STRING, Types.STRING,
        Types.LONG, Types.LONG, Types.LONG, Types.LONG, Types.LONG, Types.LONG, Types.LONG, Types.LONG, Types.LONG, Types.LONG,
        Types.LONG, Types.LONG));
  }

  /** The parts of each group's day, keyed by group and windowed by day, to be summed ({@link SumParts}). */
  private static WindowedStream<Tuple3<String, Long, long[]>, String, TimeWindow> totals(Feed feed, GroupOf group) {
    DataStream<Bid> bids = feed.bids();
    DataStream<Tuple3<String, Long, long[]>> byBidder = bids
        .keyBy(b -> Tuple2.of(group.of(b), b.bidder), KEY).window(DAYS)
        .aggregate(new BidderPart(), new EmitPart()).returns(PART);
    DataStream<Tuple3<String, Long, long[]>> byAuction = bids
        .keyBy(b -> Tuple2.of(group.of(b), b.auction), KEY).window(DAYS)
        .aggregate(new AuctionPart(), new EmitPart()).returns(PART);
    // A part carries its window's last millisecond as its timestamp: it falls in the same day here.
    return byBidder.union(byAuction).keyBy(p -> p.f0, Types.STRING).window(DAYS);
  }

  /** The group of a bid (q15: one, q16: its channel). */
  @FunctionalInterface
  interface GroupOf extends java.io.Serializable {
    String of(Bid b);
  }

  /** One (group, bidder)'s day: bids by rank, whether it bid at all and in each rank, its latest bid time. */
  static final class BidderPart implements AggregateFunction<Bid, long[], long[]> {
    @Override
    public long[] createAccumulator() {
      long[] v = new long[WIDTH];
      v[LATEST] = Long.MIN_VALUE;
      return v;
    }

    @Override
    public long[] add(Bid b, long[] v) {
      int r = rank(b.price);
      v[BIDS]++;
      v[BIDS + r]++;
      v[BIDDERS] = 1;
      v[BIDDERS + r] = 1;
      v[LATEST] = Math.max(v[LATEST], b.dateTime);
      return v;
    }

    @Override
    public long[] getResult(long[] v) {
      return v;
    }

    @Override
    public long[] merge(long[] a, long[] b) {
      return SumParts.sum(a, b);
    }
  }

  /** One (group, auction)'s day: whether it had bids at all and in each rank. */
  static final class AuctionPart implements AggregateFunction<Bid, long[], long[]> {
    @Override
    public long[] createAccumulator() {
      long[] v = new long[WIDTH];
      v[LATEST] = Long.MIN_VALUE;
      return v;
    }

    @Override
    public long[] add(Bid b, long[] v) {
      v[AUCTIONS] = 1;
      v[AUCTIONS + rank(b.price)] = 1;
      return v;
    }

    @Override
    public long[] getResult(long[] v) {
      return v;
    }

    @Override
    public long[] merge(long[] a, long[] b) {
      return SumParts.sum(a, b);
    }
  }

  /** {@code (group, day start, values)} of a part. */
  static final class EmitPart extends ProcessWindowFunction<long[], Tuple3<String, Long, long[]>, Tuple2<String, Long>, TimeWindow> {
    @Override
    public void process(Tuple2<String, Long> key, Context ctx, Iterable<long[]> parts, Collector<Tuple3<String, Long, long[]>> out) {
      out.collect(Tuple3.of(key.f0, ctx.window().getStart(), parts.iterator().next()));
    }
  }

  /** Parts of one group's day added up (the latest time: the maximum). */
  static final class SumParts implements ReduceFunction<Tuple3<String, Long, long[]>> {
    @Override
    public Tuple3<String, Long, long[]> reduce(Tuple3<String, Long, long[]> a, Tuple3<String, Long, long[]> b) {
      return Tuple3.of(a.f0, a.f1, sum(a.f2.clone(), b.f2));
    }

    /** Adds {@code b} into {@code a} (the latest time: the maximum) and returns {@code a}. */
    static long[] sum(long[] a, long[] b) {
      for (int i = 0; i < LATEST; i++) {
        a[i] += b[i];
      }
      a[LATEST] = Math.max(a[LATEST], b[LATEST]);
      return a;
    }
  }

  static final class Q15Row extends ProcessWindowFunction<Tuple3<String, Long, long[]>,
      Tuple13<String, Long, Long, Long, Long, Long, Long, Long, Long, Long, Long, Long, Long>, String, TimeWindow> {
    private final RowQueries.DateTexts dates = new RowQueries.DateTexts();

    @Override
    public void process(String group, Context ctx, Iterable<Tuple3<String, Long, long[]>> totals,
        Collector<Tuple13<String, Long, Long, Long, Long, Long, Long, Long, Long, Long, Long, Long, Long>> out) {
      long[] v = totals.iterator().next().f2;
      out.collect(Tuple13.of(dates.day(ctx.window().getStart()), v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7], v[8], v[9], v[10],
          v[11]));
    }
  }

  static final class Q16Row extends ProcessWindowFunction<Tuple3<String, Long, long[]>,
      Tuple15<String, String, String, Long, Long, Long, Long, Long, Long, Long, Long, Long, Long, Long, Long>, String, TimeWindow> {
    private final RowQueries.DateTexts dates = new RowQueries.DateTexts();

    @Override
    public void process(String channel, Context ctx, Iterable<Tuple3<String, Long, long[]>> totals,
        Collector<Tuple15<String, String, String, Long, Long, Long, Long, Long, Long, Long, Long, Long, Long, Long, Long>> out) {
      long[] v = totals.iterator().next().f2;
      // Within a day, HH:mm texts order as their times: the latest bid's minute is the maximum text.
      out.collect(Tuple15.of(channel, dates.day(ctx.window().getStart()), dates.minute(v[LATEST]), v[0], v[1], v[2], v[3], v[4], v[5],
          v[6], v[7], v[8], v[9], v[10], v[11]));
    }
  }

  // ---------------------------------------------------------------- q17

  /**
   * q17: per auction and day, {@code (auction, day, bids, bids of rank 1, 2, 3, min, max, avg and sum of
   * the price)}: one stage keyed by auction (many keys; nothing to split).
   */
  static DataStream<Tuple10<Long, String, Long, Long, Long, Long, Long, Long, Double, Long>> q17(Feed feed) {
    return feed.bids().keyBy(b -> b.auction).window(DAYS)
        .aggregate(new PriceStats(), new Q17Row())
        .returns(Types.TUPLE(Types.LONG, Types.STRING, Types.LONG, Types.LONG, Types.LONG, Types.LONG, Types.LONG, Types.LONG, Types.DOUBLE,
                Types.LONG));
  }

  /** Bids by rank (total, 1, 2, 3), then min, max and sum of the price. */
  static final class PriceStats implements AggregateFunction<Bid, long[], long[]> {
    @Override
    public long[] createAccumulator() {
      return new long[] {0, 0, 0, 0, Long.MAX_VALUE, Long.MIN_VALUE, 0};
    }

    @Override
    public long[] add(Bid b, long[] v) {
      v[0]++;
      v[rank(b.price)]++;
      v[4] = Math.min(v[4], b.price);
      v[5] = Math.max(v[5], b.price);
      v[6] = Math.addExact(v[6], b.price);
      return v;
    }

    @Override
    public long[] getResult(long[] v) {
      return v;
    }

    @Override
    public long[] merge(long[] a, long[] b) {
      for (int i = 0; i < 4; i++) {
        a[i] += b[i];
      }
      a[4] = Math.min(a[4], b[4]);
      a[5] = Math.max(a[5], b[5]);
      a[6] = Math.addExact(a[6], b[6]);
      return a;
    }
  }

  static final class Q17Row extends ProcessWindowFunction<long[], Tuple10<Long, String, Long, Long, Long, Long, Long, Long, Double, Long>,
      Long, TimeWindow> {
    private final RowQueries.DateTexts dates = new RowQueries.DateTexts();

    @Override
    public void process(Long auction, Context ctx, Iterable<long[]> stats,
        Collector<Tuple10<Long, String, Long, Long, Long, Long, Long, Long, Double, Long>> out) {
      long[] v = stats.iterator().next();
      out.collect(Tuple10.of(auction, dates.day(ctx.window().getStart()), v[0], v[1], v[2], v[3], v[4], v[5], (double) v[6] / v[0],
          v[6]));
    }
  }
}
