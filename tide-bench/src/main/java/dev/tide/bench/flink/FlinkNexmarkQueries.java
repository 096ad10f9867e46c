package dev.tide.bench.flink;

import dev.tide.bench.flink.NexmarkEvents.Auction;
import dev.tide.bench.flink.NexmarkEvents.Bid;
import dev.tide.bench.flink.NexmarkEvents.Person;
import dev.tide.bench.flink.NexmarkSources.Columns;
import dev.tide.stream.nexmark.NexmarkConfig;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.apache.flink.api.common.functions.AggregateFunction;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.common.state.MapStateDescriptor;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.TypeHint;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.java.tuple.Tuple;
import org.apache.flink.api.java.tuple.Tuple2;
import org.apache.flink.api.java.tuple.Tuple3;
import org.apache.flink.api.java.tuple.Tuple4;
import org.apache.flink.api.java.tuple.Tuple7;
import org.apache.flink.api.java.tuple.Tuple8;
import org.apache.flink.api.java.tuple.Tuple15;
import org.apache.flink.api.java.tuple.Tuple16;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.KeyedProcessFunction;
import org.apache.flink.streaming.api.functions.co.KeyedCoProcessFunction;
import org.apache.flink.streaming.api.functions.windowing.ProcessWindowFunction;
import org.apache.flink.streaming.api.windowing.assigners.EventTimeSessionWindows;
import org.apache.flink.streaming.api.windowing.assigners.SlidingEventTimeWindows;
import org.apache.flink.streaming.api.windowing.assigners.TumblingEventTimeWindows;
import org.apache.flink.streaming.api.windowing.windows.TimeWindow;
import org.apache.flink.util.Collector;

/**
 * The Nexmark queries Tide has built in (the SQL definitions of {@code dev.tide.sql.NexmarkJobs}), written as Flink DataStream jobs the
 * way a Flink developer would: event-time windows closed by watermarks, keyed process functions with
 * heap state, no state kept longer than its window where the query allows it. Each job's final output,
 * once its bounded sources end, is the same multiset of rows as Tide's view (or digest) of the query:
 *
 * <ul>
 *   <li>q0 {@code (auction, bidder, price, date_time)} of every bid;
 *   <li>q1 the same with {@code 0.908 * price} as a double;
 *   <li>q2 {@code (auction, price)} of bids with {@code auction % 123 = 0};
 *   <li>q3 {@code (name, city, state, auction id)}: auctions of category 10 joined with their sellers
 *       from OR, ID or CA;
 *   <li>q4 {@code (category, avg of the winning bid)} where a winning bid is an auction's highest bid
 *       between its start and expiry (inclusive);
 *   <li>q5 {@code (auction, count, window_start)} of the auctions with the most bids in each 10 s
 *       window sliding by 2 s;
 *   <li>q7 {@code (auction, price, bidder, date_time)} of the bids with the highest price of
 *       their 10 s tumbling window (one stage keyed by window);
 *   <li>q8 {@code (person id, name, window_start)} of persons who opened an auction in the 10 s
 *       tumbling window they registered in;
 *   <li>q9 each auction with its winning bid (q4's, equal prices: the earliest, then the least row
 *       id), the auction's columns then the bid's {@code (auction, bidder, price, date_time, extra)};
 *   <li>q10, q14, q21, q22, one row per bid (q14, q21: per bid that qualifies) in {@link RowQueries};
 *   <li>q11 {@code (bidder, count, session start, session end)} of each bidder's sessions, closed by
 *       10 s without a bid; q12 the same per 10 s tumbling window (event time, as Tide's q12);
 *   <li>q15, q16, q17, bid statistics per day (and channel, or auction) in {@link DailyStats};
 *   <li>q18 the last bid of each (bidder, auction) (equal times: the least row id); q19 the ten
 *       highest bids of each auction with their rank (equal prices: the least row id first);
 *   <li>q20 the bids of auctions of category 10, each with its auction's columns.
 * </ul>
 *
 * <p>The result of q18 and q19 is never final while bids come (a later bid replaces a pair's last
 * one, or enters an auction's top ten): as q4's averages, each group's rows are emitted once, when
 * the bounded input ends (an event-time timer at the end of time), rather than updated as they
 * change. Every other job emits a row once it is final: on each bid, or when the watermark closes
 * its window or passes its auction's expiry. q6 has no job, here or in {@link FlinkNexmarkSql}: its
 * average over a seller's last ten auctions is an OVER window on the retracting result of the
 * winning-bid aggregation, an input Flink's OVER window refuses.
 *
 * <p>Object reuse is on, so no function keeps a reference to an input record: state holds copies.
 */
public final class FlinkNexmarkQueries {
  /** The windows of the published queries: tumbling 10 s (q7, q8), hopping 10 s every 2 s (q5). */
  static final long TUMBLE_MS = 10_000;
  static final long HOP_SIZE_MS = 10_000;
  static final long HOP_SLIDE_MS = 2_000;
  private static final Set<String> Q3_STATES = Set.of("OR", "ID", "CA");

  /** The queries with a DataStream job here, in query order (q6 has none: Flink's OVER window refuses its retracting input). */
  public static final Set<String> QUERIES = inQueryOrder(List.of("q0", "q1", "q2", "q3", "q4", "q5", "q7", "q8", "q9", "q10", "q11",
      "q12", "q14", "q15", "q16", "q17", "q18", "q19", "q20", "q21", "q22"));

  private FlinkNexmarkQueries() {}

  /** {@code queries} ({@code qN}) unmodifiable, ordered by N. */
  static Set<String> inQueryOrder(Collection<String> queries) {
    TreeSet<String> s = new TreeSet<>(Comparator.comparingInt((String q) -> Integer.parseInt(q.substring(1))));
    s.addAll(queries);
    return Collections.unmodifiableSortedSet(s);
  }

  /**
   * The columns of each table the query's job reads: its sources generate only these (as Tide's
   * sources generate only what its plan reads), unless a run asks for full rows.
   */
  public static Columns columns(String query) {
    List<String> none = List.of();
    List<String> bid0 = List.of("auction", "bidder", "price", "date_time");
    List<String> auctionAll = List.of("id", "item_name", "description", "initial_bid", "reserve", "date_time", "expires", "seller",
        "category", "extra");
    return switch (query) {
      case "q0", "q1" -> Columns.of(none, none, bid0);
      case "q2" -> Columns.of(none, none, List.of("auction", "price"));
      case "q3" -> Columns.of(List.of("id", "name", "city", "state"), List.of("id", "seller", "category"), none);
      case "q4" -> Columns.of(none, List.of("id", "date_time", "expires", "category"), List.of("auction", "price", "date_time"));
      case "q5" -> Columns.of(none, none, List.of("auction", "date_time"));
      case "q7" -> Columns.of(none, none, List.of("auction", "price", "bidder", "date_time"));
      case "q8" -> Columns.of(List.of("id", "name", "date_time"), List.of("seller", "date_time"), none);
      case "q9" -> Columns.of(none, auctionAll, List.of("auction", "bidder", "price", "date_time", "extra", "_row_id"));
      case "q10", "q14" -> Columns.of(none, none, List.of("auction", "bidder", "price", "date_time", "extra"));
      case "q11", "q12" -> Columns.of(none, none, List.of("bidder", "date_time"));
      case "q15" -> Columns.of(none, none, List.of("auction", "bidder", "price", "date_time"));
      case "q16" -> Columns.of(none, none, List.of("auction", "bidder", "price", "channel", "date_time"));
      case "q17" -> Columns.of(none, none, List.of("auction", "price", "date_time"));
      case "q18", "q19" -> Columns.of(none, none, List.of("auction", "bidder", "price", "channel", "url", "date_time", "extra", "_row_id"));
      case "q20" -> Columns.of(none, auctionAll, List.of("auction", "bidder", "price", "channel", "url", "date_time", "extra"));
      case "q21", "q22" -> Columns.of(none, none, List.of("auction", "bidder", "price", "channel", "url"));
      default -> throw new IllegalArgumentException("no Flink job for query '" + query + "'; known: " + QUERIES);
    };
  }

  /** The sources of one job: the same environment, generator, event count, splits and columns for each table. */
  record Feed(StreamExecutionEnvironment env, NexmarkConfig cfg, long events, int splits, Columns columns) {
    DataStream<Bid> bids() {
      return NexmarkSources.bids(env, cfg, events, splits, 0, columns);
    }

    DataStream<Auction> auctions() {
      return NexmarkSources.auctions(env, cfg, events, splits, columns);
    }

    DataStream<Person> persons() {
      return NexmarkSources.persons(env, cfg, events, splits, columns);
    }
  }

  /**
   * Adds query {@code query}'s job to {@code env}, its output into a {@link FingerprintSink} under
   * {@code run}; its sources generate only the columns it reads, or every column if {@code fullRows}.
   */
  public static void build(String query, StreamExecutionEnvironment env, NexmarkConfig cfg, long events, int splits, String run,
      boolean fullRows) {
    Feed feed = new Feed(env, cfg, events, splits, fullRows ? Columns.ALL : columns(query));
    DataStream<? extends Tuple> out = switch (query) {
      case "q0" -> feed.bids()
          .map(b -> Tuple4.of(b.auction, b.bidder, b.price, b.dateTime))
          .returns(Types.TUPLE(Types.LONG, Types.LONG, Types.LONG, Types.LONG));
      case "q1" -> feed.bids()
          .map(b -> Tuple4.of(b.auction, b.bidder, 0.908 * b.price, b.dateTime))
          .returns(Types.TUPLE(Types.LONG, Types.LONG, Types.DOUBLE, Types.LONG));
      case "q2" -> feed.bids()
          .filter(b -> b.auction % 123 == 0)
          .map(b -> Tuple2.of(b.auction, b.price))
          .returns(Types.TUPLE(Types.LONG, Types.LONG));
      case "q3" -> q3(feed);
      case "q4" -> q4(feed);
      case "q5" -> q5(feed);
      case "q7" -> q7(feed);
      case "q8" -> q8(feed);
      case "q9" -> q9(feed);
      case "q10" -> RowQueries.q10(feed);
      case "q11" -> q11(feed);
      case "q12" -> q12(feed);
      case "q14" -> RowQueries.q14(feed);
      case "q15" -> DailyStats.q15(feed);
      case "q16" -> DailyStats.q16(feed);
      case "q17" -> DailyStats.q17(feed);
      case "q18" -> q18(feed);
      case "q19" -> q19(feed);
      case "q20" -> q20(feed);
      case "q21" -> RowQueries.q21(feed);
      case "q22" -> RowQueries.q22(feed);
      default -> throw new IllegalArgumentException("no Flink job for query '" + query + "'; known: " + QUERIES);
    };
    sink(out, run);
  }

  @SuppressWarnings({"unchecked", "rawtypes"})
  private static void sink(DataStream<? extends Tuple> out, String run) {
    ((DataStream) out).sinkTo(new FingerprintSink<>(run)).name("fingerprint");
  }

  // ---------------------------------------------------------------- q3

  private static DataStream<Tuple4<String, String, String, Long>> q3(Feed feed) {
    DataStream<Auction> auctions = feed.auctions().filter(a -> a.category == 10);
    DataStream<Person> persons = feed.persons();
    return auctions.connect(persons).keyBy(a -> a.seller, p -> p.id).process(new Q3Join())
        .returns(Types.TUPLE(Types.STRING, Types.STRING, Types.STRING, Types.LONG));
  }

  /** Per seller: the person once seen (or that it does not qualify) and the auctions that came before it. */
  static final class Q3Join extends KeyedCoProcessFunction<Long, Auction, Person, Tuple4<String, String, String, Long>> {
    private transient ValueState<Tuple3<String, String, String>> seller;
    private transient ValueState<Boolean> disqualified;
    private transient ListState<Long> waiting;

    @Override
    public void open(OpenContext ctx) {
      seller = getRuntimeContext().getState(new ValueStateDescriptor<>("seller",
          TypeInformation.of(new TypeHint<Tuple3<String, String, String>>() {})));
      disqualified = getRuntimeContext().getState(new ValueStateDescriptor<>("disqualified", Types.BOOLEAN));
      waiting = getRuntimeContext().getListState(new ListStateDescriptor<>("waiting", Types.LONG));
    }

    @Override
    public void processElement1(Auction a, Context ctx, Collector<Tuple4<String, String, String, Long>> out) throws Exception {
      Tuple3<String, String, String> p = seller.value();
      if (p != null) {
        out.collect(Tuple4.of(p.f0, p.f1, p.f2, a.id));
      } else if (disqualified.value() == null) {
        waiting.add(a.id);
      }
    }

    @Override
    public void processElement2(Person p, Context ctx, Collector<Tuple4<String, String, String, Long>> out) throws Exception {
      if (!Q3_STATES.contains(p.state)) {
        disqualified.update(true);
        waiting.clear();
        return;
      }
      Tuple3<String, String, String> s = Tuple3.of(p.name, p.city, p.state);
      seller.update(s);
      for (Long id : waiting.get()) {
        out.collect(Tuple4.of(s.f0, s.f1, s.f2, id));
      }
      waiting.clear();
    }
  }

  // ---------------------------------------------------------------- q4

  private static DataStream<Tuple2<Long, Double>> q4(Feed feed) {
    DataStream<Auction> auctions = feed.auctions();
    DataStream<Bid> bids = feed.bids();
    return auctions.connect(bids).keyBy(a -> a.id, b -> b.auction).process(new Q4Winner())
        .returns(Types.TUPLE(Types.LONG, Types.LONG))
        .keyBy(t -> t.f0).process(new Q4Average())
        .returns(Types.TUPLE(Types.LONG, Types.DOUBLE));
  }

  /**
   * Per auction: its window and category, the highest bid within the window, and the bids that came
   * before the auction. Emits {@code (category, final price)} once the watermark passes expiry.
   */
  static final class Q4Winner extends KeyedCoProcessFunction<Long, Auction, Bid, Tuple2<Long, Long>> {
    private transient ValueState<Tuple3<Long, Long, Long>> auction; // date_time, expires, category
    private transient ValueState<Long> maxPrice;
    private transient ListState<Tuple2<Long, Long>> early; // date_time, price

    @Override
    public void open(OpenContext ctx) {
      auction = getRuntimeContext().getState(new ValueStateDescriptor<>("auction",
          TypeInformation.of(new TypeHint<Tuple3<Long, Long, Long>>() {})));
      maxPrice = getRuntimeContext().getState(new ValueStateDescriptor<>("max", Types.LONG));
      early = getRuntimeContext().getListState(new ListStateDescriptor<>("early",
          TypeInformation.of(new TypeHint<Tuple2<Long, Long>>() {})));
    }

    @Override
    public void processElement1(Auction a, Context ctx, Collector<Tuple2<Long, Long>> out) throws Exception {
      auction.update(Tuple3.of(a.dateTime, a.expires, a.category));
      for (Tuple2<Long, Long> b : early.get()) {
        offer(a.dateTime, a.expires, b.f0, b.f1);
      }
      early.clear();
      ctx.timerService().registerEventTimeTimer(a.expires);
    }

    @Override
    public void processElement2(Bid b, Context ctx, Collector<Tuple2<Long, Long>> out) throws Exception {
      Tuple3<Long, Long, Long> a = auction.value();
      if (a == null) {
        // Its auction is older than the bid: if it has not come once the watermark passes the bid,
        // it has expired and gone already, and the bid cannot win.
        early.add(Tuple2.of(b.dateTime, b.price));
        ctx.timerService().registerEventTimeTimer(b.dateTime);
      } else {
        offer(a.f0, a.f1, b.dateTime, b.price);
      }
    }

    private void offer(long start, long expires, long t, long price) throws Exception {
      if (t >= start && t <= expires) {
        Long m = maxPrice.value();
        if (m == null || price > m) {
          maxPrice.update(price);
        }
      }
    }

    @Override
    public void onTimer(long timestamp, OnTimerContext ctx, Collector<Tuple2<Long, Long>> out) throws Exception {
      Tuple3<Long, Long, Long> a = auction.value();
      if (a == null) {
        early.clear();
        return;
      }
      if (timestamp != a.f1) {
        return; // a timer of an early bid
      }
      Long m = maxPrice.value();
      if (m != null) {
        out.collect(Tuple2.of(a.f2, m));
      }
      auction.clear();
      maxPrice.clear();
      early.clear();
    }
  }

  /** Per category: the running sum and count of final prices; the average once the input ends. */
  static final class Q4Average extends KeyedProcessFunction<Long, Tuple2<Long, Long>, Tuple2<Long, Double>> {
    private transient ValueState<Tuple2<Long, Long>> sumCount;

    @Override
    public void open(OpenContext ctx) {
      sumCount = getRuntimeContext().getState(new ValueStateDescriptor<>("sum-count",
          TypeInformation.of(new TypeHint<Tuple2<Long, Long>>() {})));
    }

    @Override
    public void processElement(Tuple2<Long, Long> f, Context ctx, Collector<Tuple2<Long, Double>> out) throws Exception {
      Tuple2<Long, Long> sc = sumCount.value();
      if (sc == null) {
        sumCount.update(Tuple2.of(f.f1, 1L));
        ctx.timerService().registerEventTimeTimer(Long.MAX_VALUE);
      } else {
        sumCount.update(Tuple2.of(Math.addExact(sc.f0, f.f1), sc.f1 + 1));
      }
    }

    @Override
    public void onTimer(long timestamp, OnTimerContext ctx, Collector<Tuple2<Long, Double>> out) throws Exception {
      Tuple2<Long, Long> sc = sumCount.value();
      out.collect(Tuple2.of(ctx.getCurrentKey(), (double) sc.f0 / sc.f1));
    }
  }

  // ---------------------------------------------------------------- q5

  private static DataStream<Tuple3<Long, Long, Long>> q5(Feed feed) {
    return feed.bids()
        .keyBy(b -> b.auction)
        .window(SlidingEventTimeWindows.of(Duration.ofMillis(HOP_SIZE_MS), Duration.ofMillis(HOP_SLIDE_MS)))
        .aggregate(new Count(), new WithWindowStart())
        .keyBy(t -> t.f2)
        .process(new TopCount())
        .returns(Types.TUPLE(Types.LONG, Types.LONG, Types.LONG));
  }

  static final class Count implements AggregateFunction<Bid, Long, Long> {
    @Override
    public Long createAccumulator() {
      return 0L;
    }

    @Override
    public Long add(Bid value, Long acc) {
      return acc + 1;
    }

    @Override
    public Long getResult(Long acc) {
      return acc;
    }

    @Override
    public Long merge(Long a, Long b) {
      return a + b;
    }
  }

  /** {@code (auction, count, window_start)}. */
  static final class WithWindowStart extends ProcessWindowFunction<Long, Tuple3<Long, Long, Long>, Long, TimeWindow> {
    @Override
    public void process(Long auction, Context ctx, Iterable<Long> counts, Collector<Tuple3<Long, Long, Long>> out) {
      out.collect(Tuple3.of(auction, counts.iterator().next(), ctx.window().getStart()));
    }
  }

  /** Per window start: the auctions with the highest count, emitted when the watermark passes the window. */
  static final class TopCount extends KeyedProcessFunction<Long, Tuple3<Long, Long, Long>, Tuple3<Long, Long, Long>> {
    private transient ValueState<Long> max;
    private transient ListState<Long> leaders;

    @Override
    public void open(OpenContext ctx) {
      max = getRuntimeContext().getState(new ValueStateDescriptor<>("max", Types.LONG));
      leaders = getRuntimeContext().getListState(new ListStateDescriptor<>("leaders", Types.LONG));
    }

    @Override
    public void processElement(Tuple3<Long, Long, Long> c, Context ctx, Collector<Tuple3<Long, Long, Long>> out) throws Exception {
      Long m = max.value();
      if (m == null) {
        ctx.timerService().registerEventTimeTimer(c.f2 + HOP_SIZE_MS - 1);
      }
      if (m == null || c.f1 > m) {
        max.update(c.f1);
        leaders.update(List.of(c.f0));
      } else if (c.f1.longValue() == m) {
        leaders.add(c.f0);
      }
    }

    @Override
    public void onTimer(long timestamp, OnTimerContext ctx, Collector<Tuple3<Long, Long, Long>> out) throws Exception {
      long m = max.value();
      for (Long auction : leaders.get()) {
        out.collect(Tuple3.of(auction, m, ctx.getCurrentKey()));
      }
      max.clear();
      leaders.clear();
    }
  }

  // ---------------------------------------------------------------- q7

  private static DataStream<Tuple4<Long, Long, Long, Long>> q7(Feed feed) {
    TypeInformation<Tuple4<Long, Long, Long, Long>> row = Types.TUPLE(Types.LONG, Types.LONG, Types.LONG, Types.LONG);
    return feed.bids()
        .map(b -> Tuple4.of(b.auction, b.price, b.bidder, b.dateTime)).returns(row)
        .keyBy(t -> windowStart(t.f3, TUMBLE_MS)).process(new HighestBids()).returns(row);
  }

  static long windowStart(long t, long size) {
    return Math.floorDiv(t, size) * size;
  }

  /**
   * Keyed by window start: the bids {@code (auction, price, bidder, date_time)} with the
   * highest price of the window, emitted when the watermark passes it. One keyed stage: a first stage
   * keyed by auction (a pre-aggregation) made the job about 2x slower, as every bid then crossed two
   * shuffles and kept a timer per auction.
   */
  static final class HighestBids extends KeyedProcessFunction<Long, Tuple4<Long, Long, Long, Long>,
      Tuple4<Long, Long, Long, Long>> {
    private transient MapState<Long, List<Tuple4<Long, Long, Long, Long>>> byWindow;

    @Override
    public void open(OpenContext ctx) {
      byWindow = getRuntimeContext().getMapState(new MapStateDescriptor<>("by-window", Types.LONG,
          Types.LIST(Types.TUPLE(Types.LONG, Types.LONG, Types.LONG, Types.LONG))));
    }

    @Override
    public void processElement(Tuple4<Long, Long, Long, Long> b, Context ctx,
        Collector<Tuple4<Long, Long, Long, Long>> out) throws Exception {
      long w = windowStart(b.f3, TUMBLE_MS);
      List<Tuple4<Long, Long, Long, Long>> best = byWindow.get(w);
      if (best == null) {
        best = new ArrayList<>(1);
        ctx.timerService().registerEventTimeTimer(w + TUMBLE_MS - 1);
      } else if (b.f1 < best.get(0).f1) {
        return;
      } else if (b.f1 > best.get(0).f1) {
        best.clear();
      }
      best.add(b.copy());
      byWindow.put(w, best);
    }

    @Override
    public void onTimer(long timestamp, OnTimerContext ctx, Collector<Tuple4<Long, Long, Long, Long>> out) throws Exception {
      long w = timestamp + 1 - TUMBLE_MS;
      List<Tuple4<Long, Long, Long, Long>> best = byWindow.get(w);
      if (best != null) {
        for (Tuple4<Long, Long, Long, Long> b : best) {
          out.collect(b);
        }
        byWindow.remove(w);
      }
    }
  }

  // ---------------------------------------------------------------- q8

  private static DataStream<Tuple3<Long, String, Long>> q8(Feed feed) {
    DataStream<Person> persons = feed.persons();
    DataStream<Auction> auctions = feed.auctions();
    return persons.connect(auctions).keyBy(p -> p.id, a -> a.seller).process(new Q8Join())
        .returns(Types.TUPLE(Types.LONG, Types.STRING, Types.LONG));
  }

  /**
   * Per person id: the person's name and window, and the windows in which it opened an auction before
   * the person was seen. Emits {@code (id, name, window_start)} once per window where both meet;
   * state is cleared when the watermark passes the person's window.
   */
  static final class Q8Join extends KeyedCoProcessFunction<Long, Person, Auction, Tuple3<Long, String, Long>> {
    private transient ValueState<Tuple3<String, Long, Boolean>> person; // name, window_start, emitted
    private transient MapState<Long, Boolean> sellerWindows;

    @Override
    public void open(OpenContext ctx) {
      person = getRuntimeContext().getState(new ValueStateDescriptor<>("person",
          TypeInformation.of(new TypeHint<Tuple3<String, Long, Boolean>>() {})));
      sellerWindows = getRuntimeContext().getMapState(new MapStateDescriptor<>("seller-windows", Types.LONG, Types.BOOLEAN));
    }

    @Override
    public void processElement1(Person p, Context ctx, Collector<Tuple3<Long, String, Long>> out) throws Exception {
      long w = windowStart(p.dateTime, TUMBLE_MS);
      boolean sold = sellerWindows.contains(w);
      if (sold) {
        out.collect(Tuple3.of(p.id, p.name, w));
      }
      person.update(Tuple3.of(p.name, w, sold));
      sellerWindows.clear();
      ctx.timerService().registerEventTimeTimer(w + TUMBLE_MS - 1);
    }

    @Override
    public void processElement2(Auction a, Context ctx, Collector<Tuple3<Long, String, Long>> out) throws Exception {
      long w = windowStart(a.dateTime, TUMBLE_MS);
      Tuple3<String, Long, Boolean> p = person.value();
      if (p == null) {
        sellerWindows.put(w, true);
        ctx.timerService().registerEventTimeTimer(w + TUMBLE_MS - 1);
      } else if (p.f1 == w && !p.f2) {
        out.collect(Tuple3.of(ctx.getCurrentKey(), p.f0, w));
        person.update(Tuple3.of(p.f0, p.f1, true));
      }
    }

    @Override
    public void onTimer(long timestamp, OnTimerContext ctx, Collector<Tuple3<Long, String, Long>> out) throws Exception {
      long w = timestamp + 1 - TUMBLE_MS;
      sellerWindows.remove(w);
      Tuple3<String, Long, Boolean> p = person.value();
      if (p != null && p.f1 == w) {
        person.clear();
      }
    }
  }

  // ---------------------------------------------------------------- q9

  private static DataStream<Tuple15<Long, String, String, Long, Long, Long, Long, Long, Long, String, Long, Long, Long, Long, String>>
      q9(Feed feed) {
    return feed.auctions().connect(feed.bids()).keyBy(a -> a.id, b -> b.auction).process(new Q9Winner())
        .returns(Types.TUPLE(Types.LONG, Types.STRING, Types.STRING, Types.LONG, Types.LONG, Types.LONG, Types.LONG, Types.LONG,
            Types.LONG, Types.STRING, Types.LONG, Types.LONG, Types.LONG, Types.LONG, Types.STRING));
  }

  /**
   * Per auction: the auction, its winning bid so far (the highest price between its start and expiry,
   * inclusive; equal prices: the earliest, then the least row id) and the bids that came before the
   * auction. Emits the auction with its winning bid once the watermark passes expiry, as {@link
   * Q4Winner} does.
   */
  static final class Q9Winner extends KeyedCoProcessFunction<Long, Auction, Bid,
      Tuple15<Long, String, String, Long, Long, Long, Long, Long, Long, String, Long, Long, Long, Long, String>> {
    private transient ValueState<Auction> auction;
    private transient ValueState<Bid> best;
    private transient ListState<Bid> early;

    @Override
    public void open(OpenContext ctx) {
      auction = getRuntimeContext().getState(new ValueStateDescriptor<>("auction", TypeInformation.of(Auction.class)));
      best = getRuntimeContext().getState(new ValueStateDescriptor<>("best", TypeInformation.of(Bid.class)));
      early = getRuntimeContext().getListState(new ListStateDescriptor<>("early", TypeInformation.of(Bid.class)));
    }

    @Override
    public void processElement1(Auction a, Context ctx, Collector<Tuple15<Long, String, String, Long, Long, Long, Long, Long, Long,
        String, Long, Long, Long, Long, String>> out) throws Exception {
      Auction kept = a.copy();
      auction.update(kept);
      for (Bid b : early.get()) {
        offer(kept, b);
      }
      early.clear();
      ctx.timerService().registerEventTimeTimer(a.expires);
    }

    @Override
    public void processElement2(Bid b, Context ctx, Collector<Tuple15<Long, String, String, Long, Long, Long, Long, Long, Long,
        String, Long, Long, Long, Long, String>> out) throws Exception {
      Auction a = auction.value();
      if (a == null) {
        // As in Q4Winner: an auction not seen once the watermark passes the bid has expired and gone.
        early.add(b.copy());
        ctx.timerService().registerEventTimeTimer(b.dateTime);
      } else {
        offer(a, b);
      }
    }

    private void offer(Auction a, Bid b) throws Exception {
      if (b.dateTime < a.dateTime || b.dateTime > a.expires) {
        return;
      }
      Bid m = best.value();
      if (m == null || b.price > m.price
          || b.price == m.price && (b.dateTime < m.dateTime || b.dateTime == m.dateTime && b.rowId < m.rowId)) {
        best.update(b.copy());
      }
    }

    @Override
    public void onTimer(long timestamp, OnTimerContext ctx, Collector<Tuple15<Long, String, String, Long, Long, Long, Long, Long,
        Long, String, Long, Long, Long, Long, String>> out) throws Exception {
      Auction a = auction.value();
      if (a == null) {
        early.clear();
        return;
      }
      if (timestamp != a.expires) {
        return; // a timer of an early bid
      }
      Bid b = best.value();
      if (b != null) {
        out.collect(Tuple15.of(a.id, a.itemName, a.description, a.initialBid, a.reserve, a.dateTime, a.expires, a.seller, a.category,
            a.extra, b.auction, b.bidder, b.price, b.dateTime, b.extra));
      }
      auction.clear();
      best.clear();
      early.clear();
    }
  }

  // ---------------------------------------------------------------- q11, q12

  /** q11's session gap: a bidder's session ends 10 s after its last bid. */
  static final long SESSION_GAP_MS = 10_000;

  /** q11: {@code (bidder, bids, session start, session end)} of each bidder's sessions (first bid, last bid + 10 s). */
  private static DataStream<Tuple4<Long, Long, Long, Long>> q11(Feed feed) {
    return feed.bids()
        .keyBy(b -> b.bidder)
        .window(EventTimeSessionWindows.withGap(Duration.ofMillis(SESSION_GAP_MS)))
        .aggregate(new Count(), new WithWindowBounds())
        .returns(Types.TUPLE(Types.LONG, Types.LONG, Types.LONG, Types.LONG));
  }

  /** q12 (in event time): {@code (bidder, bids, window_start, window_end)} per 10 s tumbling window. */
  private static DataStream<Tuple4<Long, Long, Long, Long>> q12(Feed feed) {
    return feed.bids()
        .keyBy(b -> b.bidder)
        .window(TumblingEventTimeWindows.of(Duration.ofMillis(TUMBLE_MS)))
        .aggregate(new Count(), new WithWindowBounds())
        .returns(Types.TUPLE(Types.LONG, Types.LONG, Types.LONG, Types.LONG));
  }

  /** {@code (key, count, window start, window end)}. */
  static final class WithWindowBounds extends ProcessWindowFunction<Long, Tuple4<Long, Long, Long, Long>, Long, TimeWindow> {
    @Override
    public void process(Long key, Context ctx, Iterable<Long> counts, Collector<Tuple4<Long, Long, Long, Long>> out) {
      out.collect(Tuple4.of(key, counts.iterator().next(), ctx.window().getStart(), ctx.window().getEnd()));
    }
  }

  // ---------------------------------------------------------------- q18, q19

  private static final TypeInformation<Tuple7<Long, Long, Long, String, String, Long, String>> BID_ROW =
      Types.TUPLE(Types.LONG, Types.LONG, Types.LONG, Types.STRING, Types.STRING, Types.LONG, Types.STRING);

  /** q18: the last bid {@code (auction, bidder, price, channel, url, date_time, extra)} of each bidder on each auction. */
  private static DataStream<Tuple7<Long, Long, Long, String, String, Long, String>> q18(Feed feed) {
    return feed.bids()
        .keyBy(b -> Tuple2.of(b.bidder, b.auction), Types.TUPLE(Types.LONG, Types.LONG))
        .process(new LastBid()).returns(BID_ROW);
  }

  /**
   * Per (bidder, auction): its latest bid (equal times: the least row id). The query's result is
   * the latest bid of each pair; the job is bounded, so each pair's bid is emitted once, when its
   * input ends (an event-time timer at the end of time, as {@link Q4Average}), not updated as it goes.
   */
  static final class LastBid extends KeyedProcessFunction<Tuple2<Long, Long>, Bid, Tuple7<Long, Long, Long, String, String, Long, String>> {
    private transient ValueState<Bid> last;

    @Override
    public void open(OpenContext ctx) {
      last = getRuntimeContext().getState(new ValueStateDescriptor<>("last", TypeInformation.of(Bid.class)));
    }

    @Override
    public void processElement(Bid b, Context ctx, Collector<Tuple7<Long, Long, Long, String, String, Long, String>> out)
        throws Exception {
      Bid l = last.value();
      if (l == null) {
        ctx.timerService().registerEventTimeTimer(Long.MAX_VALUE);
      }
      if (l == null || b.dateTime > l.dateTime || b.dateTime == l.dateTime && b.rowId < l.rowId) {
        last.update(b.copy());
      }
    }

    @Override
    public void onTimer(long timestamp, OnTimerContext ctx, Collector<Tuple7<Long, Long, Long, String, String, Long, String>> out)
        throws Exception {
      Bid b = last.value();
      out.collect(Tuple7.of(b.auction, b.bidder, b.price, b.channel, b.url, b.dateTime, b.extra));
    }
  }

  /** q19's rank limit: the ten highest bids of each auction. */
  static final int Q19_TOP = 10;

  /** q19: the ten highest bids of each auction with their rank, {@code (auction, bidder, price, channel, url, date_time, extra, rank)}. */
  private static DataStream<Tuple8<Long, Long, Long, String, String, Long, String, Long>> q19(Feed feed) {
    return feed.bids().keyBy(b -> b.auction).process(new TopBids())
        .returns(Types.TUPLE(Types.LONG, Types.LONG, Types.LONG, Types.STRING, Types.STRING, Types.LONG, Types.STRING, Types.LONG));
  }

  /**
   * Per auction: its {@value #Q19_TOP} highest bids so far, in rank order (equal prices: the least
   * row id first); a bid below the last of a full list is dropped at once. Emitted with their ranks
   * when the input ends, as {@link LastBid}.
   */
  static final class TopBids extends KeyedProcessFunction<Long, Bid, Tuple8<Long, Long, Long, String, String, Long, String, Long>> {
    private transient ValueState<List<Bid>> top;

    @Override
    public void open(OpenContext ctx) {
      top = getRuntimeContext().getState(new ValueStateDescriptor<>("top", Types.LIST(TypeInformation.of(Bid.class))));
    }

    @Override
    public void processElement(Bid b, Context ctx, Collector<Tuple8<Long, Long, Long, String, String, Long, String, Long>> out)
        throws Exception {
      List<Bid> t = top.value();
      if (t == null) {
        t = new ArrayList<>(Q19_TOP + 1);
        ctx.timerService().registerEventTimeTimer(Long.MAX_VALUE);
      } else if (t.size() == Q19_TOP && !ranksBefore(b, t.get(Q19_TOP - 1))) {
        return;
      }
      int at = t.size();
      while (at > 0 && ranksBefore(b, t.get(at - 1))) {
        at--;
      }
      t.add(at, b.copy());
      if (t.size() > Q19_TOP) {
        t.remove(Q19_TOP);
      }
      top.update(t);
    }

    private static boolean ranksBefore(Bid a, Bid b) {
      return a.price > b.price || a.price == b.price && a.rowId < b.rowId;
    }

    @Override
    public void onTimer(long timestamp, OnTimerContext ctx, Collector<Tuple8<Long, Long, Long, String, String, Long, String, Long>> out)
        throws Exception {
      List<Bid> t = top.value();
      for (int i = 0; i < t.size(); i++) {
        Bid b = t.get(i);
        out.collect(Tuple8.of(b.auction, b.bidder, b.price, b.channel, b.url, b.dateTime, b.extra, i + 1L));
      }
    }
  }

  // ---------------------------------------------------------------- q20

  /** q20's category. */
  static final long Q20_CATEGORY = 10;

  private static DataStream<Tuple16<Long, Long, Long, String, String, Long, String, String, String, Long, Long, Long, Long, Long, Long,
      String>> q20(Feed feed) {
    return feed.auctions().connect(feed.bids()).keyBy(a -> a.id, b -> b.auction).process(new Q20Join())
        .returns(Types.TUPLE(Types.LONG, Types.LONG, Types.LONG, Types.STRING, Types.STRING, Types.LONG, Types.STRING, Types.STRING,
            Types.STRING, Types.LONG, Types.LONG, Types.LONG, Types.LONG, Types.LONG, Types.LONG, Types.STRING));
  }

  /**
   * Per auction: the auction once seen if of category 10, or that it is not (its bids are dropped at
   * once), and the bids that came before it. Emits each bid of a category-10 auction with the
   * auction's columns as soon as both are seen. An auction stays in state for the bids still to come
   * (the query's join has no time bound).
   */
  static final class Q20Join extends KeyedCoProcessFunction<Long, Auction, Bid, Tuple16<Long, Long, Long, String, String, Long, String,
      String, String, Long, Long, Long, Long, Long, Long, String>> {
    private transient ValueState<Auction> auction;
    private transient ValueState<Boolean> disqualified;
    private transient ListState<Bid> waiting;

    @Override
    public void open(OpenContext ctx) {
      auction = getRuntimeContext().getState(new ValueStateDescriptor<>("auction", TypeInformation.of(Auction.class)));
      disqualified = getRuntimeContext().getState(new ValueStateDescriptor<>("disqualified", Types.BOOLEAN));
      waiting = getRuntimeContext().getListState(new ListStateDescriptor<>("waiting", TypeInformation.of(Bid.class)));
    }

    @Override
    public void processElement1(Auction a, Context ctx, Collector<Tuple16<Long, Long, Long, String, String, Long, String, String,
        String, Long, Long, Long, Long, Long, Long, String>> out) throws Exception {
      if (a.category != Q20_CATEGORY) {
        disqualified.update(true);
        waiting.clear();
        return;
      }
      Auction kept = a.copy();
      auction.update(kept);
      for (Bid b : waiting.get()) {
        out.collect(joined(b, kept));
      }
      waiting.clear();
    }

    @Override
    public void processElement2(Bid b, Context ctx, Collector<Tuple16<Long, Long, Long, String, String, Long, String, String,
        String, Long, Long, Long, Long, Long, Long, String>> out) throws Exception {
      Auction a = auction.value();
      if (a != null) {
        out.collect(joined(b, a));
      } else if (disqualified.value() == null) {
        waiting.add(b.copy());
      }
    }

    private static Tuple16<Long, Long, Long, String, String, Long, String, String, String, Long, Long, Long, Long, Long, Long, String>
        joined(Bid b, Auction a) {
      return Tuple16.of(b.auction, b.bidder, b.price, b.channel, b.url, b.dateTime, b.extra, a.itemName, a.description, a.initialBid,
          a.reserve, a.dateTime, a.expires, a.seller, a.category, a.extra);
    }
  }
}

