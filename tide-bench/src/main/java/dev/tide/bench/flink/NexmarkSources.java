package dev.tide.bench.flink;

import dev.tide.stream.nexmark.NexmarkConfig;
import dev.tide.stream.nexmark.NexmarkGenerator;
import dev.tide.stream.nexmark.NexmarkTable;
import java.util.List;
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
 * split in ordinal, hence event-time, order, so watermarks are monotonous per reader.
 */
public final class NexmarkSources {
  private NexmarkSources() {}

  /** The generator Tide's source uses for these options. */
  public static NexmarkConfig config(long seed, long eventTimeRate) {
    return NexmarkConfig.defaults().withSeed(seed).withEventsPerSecond(eventTimeRate);
  }

  public static DataStreamSource<NexmarkEvents.Bid> bids(StreamExecutionEnvironment env, NexmarkConfig cfg, long events,
      int splits, long ratePerSecond) {
    return source(env, new Rows<>(cfg, NexmarkTable.BID), NexmarkTable.BID, events, splits, ratePerSecond, TypeInformation.of(NexmarkEvents.Bid.class),
        WatermarkStrategy.<NexmarkEvents.Bid>forMonotonousTimestamps().withTimestampAssigner((b, ts) -> b.dateTime));
  }

  public static DataStreamSource<NexmarkEvents.Auction> auctions(StreamExecutionEnvironment env, NexmarkConfig cfg, long events,
      int splits) {
    return source(env, new Rows<>(cfg, NexmarkTable.AUCTION), NexmarkTable.AUCTION, events, splits, 0, TypeInformation.of(NexmarkEvents.Auction.class),
        WatermarkStrategy.<NexmarkEvents.Auction>forMonotonousTimestamps().withTimestampAssigner((a, ts) -> a.dateTime));
  }

  public static DataStreamSource<NexmarkEvents.Person> persons(StreamExecutionEnvironment env, NexmarkConfig cfg, long events,
      int splits) {
    return source(env, new Rows<>(cfg, NexmarkTable.PERSON), NexmarkTable.PERSON, events, splits, 0, TypeInformation.of(NexmarkEvents.Person.class),
        WatermarkStrategy.<NexmarkEvents.Person>forMonotonousTimestamps().withTimestampAssigner((p, ts) -> p.dateTime));
  }

  /** Ordinal to event of one table; carries the generator's seed and event-time rate (the config is not serializable). */
  static final class Rows<T> implements GeneratorFunction<Long, T> {
    private static final long serialVersionUID = 1L;
    private final long seed;
    private final long eventTimeRate;
    private final NexmarkTable table;
    private transient NexmarkGenerator generator;

    Rows(NexmarkConfig cfg, NexmarkTable table) {
      this.seed = cfg.seed();
      this.eventTimeRate = cfg.eventsPerSecond();
      this.table = table;
    }

    @Override
    @SuppressWarnings("unchecked")
    public T map(Long ordinal) {
      if (generator == null) {
        generator = new NexmarkGenerator(config(seed, eventTimeRate));
      }
      return (T) switch (table) {
        case PERSON -> NexmarkEvents.Person.of(generator, ordinal);
        case AUCTION -> NexmarkEvents.Auction.of(generator, ordinal);
        case BID -> NexmarkEvents.Bid.of(generator, ordinal);
      };
    }
  }

  /**
   * @param events events of the whole stream (all tables); the source emits this table's share
   * @param ratePerSecond events of this table per second across all readers; 0 for unthrottled
   */
  private static <T> DataStreamSource<T> source(StreamExecutionEnvironment env, GeneratorFunction<Long, T> f, NexmarkTable table,
      long events, int splits, long ratePerSecond, TypeInformation<T> type, WatermarkStrategy<T> watermarks) {
    long count = NexmarkGenerator.ordinalsBelow(table, events);
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
