package dev.tide.bench.flink;

import dev.tide.common.chunk.LongColumn;
import dev.tide.common.chunk.StreamChunk;
import dev.tide.common.chunk.StringColumn;
import dev.tide.stream.nexmark.NexmarkBatch;
import dev.tide.stream.nexmark.NexmarkConfig;
import dev.tide.stream.nexmark.NexmarkGenerator;
import dev.tide.stream.nexmark.NexmarkTable;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.connector.source.SplitEnumerator;
import org.apache.flink.api.connector.source.SplitEnumeratorContext;
import org.apache.flink.api.connector.source.lib.NumberSequenceSource;
import org.apache.flink.api.connector.source.lib.util.IteratorSourceEnumerator;
import org.apache.flink.api.connector.source.util.ratelimit.RateLimiterStrategy;
import org.apache.flink.connector.datagen.source.DataGeneratorSource;
import org.apache.flink.connector.datagen.source.GeneratorFunction;
import org.apache.flink.streaming.api.datastream.DataStreamSource;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

/**
 * Flink sources of the Nexmark tables: a {@link DataGeneratorSource} whose index {@code i} is the
 * table's {@code i}-th event from {@link NexmarkGenerator}, so Flink reads exactly the events Tide's
 * {@code nexmark} source emits for the same seed, event-time rate and event count.
 *
 * <p>Each source has as many splits as requested (contiguous ordinal ranges): a reader emits its
 * split in ordinal, hence event-time, order. Watermarks trail the event time by {@link #WATERMARK_DELAY},
 * as the published Nexmark tables (and Tide's {@code nexmark/sources.sql}) declare them.
 *
 * <p>Columns: given the columns a job reads ({@link Columns#of}), a reader generates only those,
 * column by column in blocks of consecutive ordinals with the {@link NexmarkBatch} Tide's source
 * uses, and leaves the other fields of its records unset (0 or null), as a source with projection
 * pushdown does; so both engines pay the same generation cost. {@link Columns#ALL} is the full-row
 * path: every field of every record, through the boxed {@link NexmarkGenerator#row}.
 *
 * <p>Progress: readers add the rows they produced to a JVM-wide counter every {@value #FLUSH_ROWS}
 * rows ({@link #rowsProduced}); the benchmark samples it. One run at a time per JVM.
 */
public final class NexmarkSources {
  /** {@code WATERMARK FOR dateTime AS dateTime - INTERVAL '4' SECOND}, as the published tables declare. */
  public static final java.time.Duration WATERMARK_DELAY = java.time.Duration.ofSeconds(4);

  private static final int FLUSH_ROWS = 1024;
  private static final AtomicLong ROWS = new AtomicLong();
  private static final AtomicLong EXPECTED = new AtomicLong();

  private NexmarkSources() {}

  /** Starts counting a new run's rows from zero. */
  public static void resetRows() {
    ROWS.set(0);
    EXPECTED.set(0);
  }

  /** Rows the readers produced since {@link #resetRows}, up to {@value #FLUSH_ROWS} per reader behind. */
  public static long rowsProduced() {
    return ROWS.get();
  }

  /** Rows the sources created since {@link #resetRows} produce in all. */
  public static long rowsExpected() {
    return EXPECTED.get();
  }

  /** The columns of each table a job reads; {@link #ALL} for every column of every table. */
  public record Columns(String[] person, String[] auction, String[] bid) implements java.io.Serializable {
    public static final Columns ALL = new Columns(null, null, null);

    /** Columns of the bid, auction and person tables a job reads, by name. */
    public static Columns of(List<String> person, List<String> auction, List<String> bid) {
      return new Columns(person.toArray(String[]::new), auction.toArray(String[]::new), bid.toArray(String[]::new));
    }

    int[] indexes(NexmarkTable t) {
      String[] names = switch (t) {
        case PERSON -> person;
        case AUCTION -> auction;
        case BID -> bid;
      };
      if (names == null) {
        return null;
      }
      int[] idx = new int[names.length];
      for (int i = 0; i < names.length; i++) {
        idx[i] = t.schema().indexOf(names[i]);
        if (idx[i] < 0) {
          throw new IllegalArgumentException("nexmark " + t.tableName() + " has no column '" + names[i] + "'; columns: "
              + t.schema().names());
        }
      }
      return idx;
    }
  }

  /** The generator Tide's source uses for these options. */
  public static NexmarkConfig config(long seed, long eventTimeRate) {
    return NexmarkConfig.defaults().withSeed(seed).withEventsPerSecond(eventTimeRate);
  }

  public static DataStreamSource<NexmarkEvents.Bid> bids(StreamExecutionEnvironment env, NexmarkConfig cfg, long events,
      int splits, long ratePerSecond, Columns columns) {
    return source(env, new Rows<>(cfg, NexmarkTable.BID, events, columns), NexmarkTable.BID, events, splits, ratePerSecond, TypeInformation.of(NexmarkEvents.Bid.class),
        WatermarkStrategy.<NexmarkEvents.Bid>forBoundedOutOfOrderness(WATERMARK_DELAY).withTimestampAssigner((b, ts) -> b.dateTime));
  }

  public static DataStreamSource<NexmarkEvents.Auction> auctions(StreamExecutionEnvironment env, NexmarkConfig cfg, long events,
      int splits, Columns columns) {
    return source(env, new Rows<>(cfg, NexmarkTable.AUCTION, events, columns), NexmarkTable.AUCTION, events, splits, 0, TypeInformation.of(NexmarkEvents.Auction.class),
        WatermarkStrategy.<NexmarkEvents.Auction>forBoundedOutOfOrderness(WATERMARK_DELAY).withTimestampAssigner((a, ts) -> a.dateTime));
  }

  public static DataStreamSource<NexmarkEvents.Person> persons(StreamExecutionEnvironment env, NexmarkConfig cfg, long events,
      int splits, Columns columns) {
    return source(env, new Rows<>(cfg, NexmarkTable.PERSON, events, columns), NexmarkTable.PERSON, events, splits, 0, TypeInformation.of(NexmarkEvents.Person.class),
        WatermarkStrategy.<NexmarkEvents.Person>forBoundedOutOfOrderness(WATERMARK_DELAY).withTimestampAssigner((p, ts) -> p.dateTime));
  }

  /**
   * Ordinal to event of one table; carries the generator's seed and event-time rate (the config is
   * not serializable). Each reader has its own copy, so the block and the unflushed count are its own.
   */
  static final class Rows<T> implements GeneratorFunction<Long, T> {
    private static final long serialVersionUID = 1L;
    private static final int BLOCK = 1024;
    private final long seed;
    private final long eventTimeRate;
    private final NexmarkTable table;
    private final long count; // ordinals of the table in the stream
    private final int[] columns; // null: every column, boxed
    private transient NexmarkGenerator generator;
    private transient NexmarkBatch batch;
    private transient StreamChunk block; // columns of ordinals blockStart .. blockStart + block.size() - 1
    private transient long blockStart;
    private transient int unflushed;

    Rows(NexmarkConfig cfg, NexmarkTable table, long events, Columns columns) {
      this.seed = cfg.seed();
      this.eventTimeRate = cfg.eventsPerSecond();
      this.table = table;
      this.count = NexmarkGenerator.ordinalsBelow(table, events);
      this.columns = columns.indexes(table);
    }

    @Override
    @SuppressWarnings("unchecked")
    public T map(Long ordinal) {
      if (generator == null) {
        generator = new NexmarkGenerator(config(seed, eventTimeRate));
        if (columns != null) {
          batch = generator.batch(table, columns, BLOCK);
        }
      }
      if (++unflushed == FLUSH_ROWS) {
        ROWS.addAndGet(unflushed);
        unflushed = 0;
      }
      if (columns == null) {
        return (T) switch (table) {
          case PERSON -> NexmarkEvents.Person.of(generator, ordinal);
          case AUCTION -> NexmarkEvents.Auction.of(generator, ordinal);
          case BID -> NexmarkEvents.Bid.of(generator, ordinal);
        };
      }
      long o = ordinal;
      if (block == null || o < blockStart || o >= blockStart + block.size()) {
        // A reader asks for its split's ordinals in order: generate the next block from here on.
        long end = Math.min(count, o + BLOCK);
        for (long x = o; x < end; x++) {
          batch.add(x);
        }
        block = batch.take();
        blockStart = o;
      }
      int row = (int) (o - blockStart);
      return (T) switch (table) {
        case PERSON -> person(row);
        case AUCTION -> auction(row);
        case BID -> bid(row);
      };
    }

    private long longAt(int c, int row) {
      return ((LongColumn) block.column(c)).getLong(row);
    }

    private String stringAt(int c, int row) {
      return ((StringColumn) block.column(c)).getString(row);
    }

    private NexmarkEvents.Person person(int row) {
      NexmarkEvents.Person p = new NexmarkEvents.Person();
      for (int c = 0; c < columns.length; c++) {
        switch (columns[c]) {
          case 0 -> p.id = longAt(c, row);
          case 1 -> p.name = stringAt(c, row);
          case 2 -> p.emailAddress = stringAt(c, row);
          case 3 -> p.creditCard = stringAt(c, row);
          case 4 -> p.city = stringAt(c, row);
          case 5 -> p.state = stringAt(c, row);
          case 6 -> p.dateTime = longAt(c, row);
          default -> p.extra = stringAt(c, row);
        }
      }
      return p;
    }

    private NexmarkEvents.Auction auction(int row) {
      NexmarkEvents.Auction a = new NexmarkEvents.Auction();
      for (int c = 0; c < columns.length; c++) {
        switch (columns[c]) {
          case 0 -> a.id = longAt(c, row);
          case 1 -> a.itemName = stringAt(c, row);
          case 2 -> a.description = stringAt(c, row);
          case 3 -> a.initialBid = longAt(c, row);
          case 4 -> a.reserve = longAt(c, row);
          case 5 -> a.dateTime = longAt(c, row);
          case 6 -> a.expires = longAt(c, row);
          case 7 -> a.seller = longAt(c, row);
          case 8 -> a.category = longAt(c, row);
          default -> a.extra = stringAt(c, row);
        }
      }
      return a;
    }

    private NexmarkEvents.Bid bid(int row) {
      NexmarkEvents.Bid b = new NexmarkEvents.Bid();
      for (int c = 0; c < columns.length; c++) {
        switch (columns[c]) {
          case 0 -> b.auction = longAt(c, row);
          case 1 -> b.bidder = longAt(c, row);
          case 2 -> b.price = longAt(c, row);
          case 3 -> b.channel = stringAt(c, row);
          case 4 -> b.url = stringAt(c, row);
          case 5 -> b.dateTime = longAt(c, row);
          case 6 -> b.extra = stringAt(c, row);
          default -> b.rowId = longAt(c, row);
        }
      }
      return b;
    }
  }

  /**
   * @param events events of the whole stream (all tables); the source emits this table's share
   * @param ratePerSecond events of this table per second across all readers; 0 for unthrottled
   */
  private static <T> DataStreamSource<T> source(StreamExecutionEnvironment env, GeneratorFunction<Long, T> f, NexmarkTable table,
      long events, int splits, long ratePerSecond, TypeInformation<T> type, WatermarkStrategy<T> watermarks) {
    long count = NexmarkGenerator.ordinalsBelow(table, events);
    EXPECTED.addAndGet(count);
    RateLimiterStrategy<?> rate = ratePerSecond > 0 ? RateLimiterStrategy.perSecond(ratePerSecond) : RateLimiterStrategy.noOp();
    DataGeneratorSource<T> source = new DataGeneratorSource<>(f, new SplitSequence(0, count - 1, splits), rate, type);
    return env.fromSource(source, watermarks, table.tableName());
  }

  /** A number sequence cut into a fixed number of splits, whatever the parallelism. */
  static final class SplitSequence extends NumberSequenceSource {
    private static final long serialVersionUID = 1L;
    private final int splits;

    SplitSequence(long from, long to, int splits) {
      super(from, to);
      this.splits = splits;
    }

    @Override
    public SplitEnumerator<NumberSequenceSplit, java.util.Collection<NumberSequenceSplit>> createEnumerator(
        SplitEnumeratorContext<NumberSequenceSplit> ctx) {
      List<NumberSequenceSplit> s = splitNumberRange(getFrom(), getTo(), splits);
      return new IteratorSourceEnumerator<>(ctx, s);
    }
  }
}
