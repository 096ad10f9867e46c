package dev.tide.stream.nexmark;

import static dev.tide.stream.nexmark.NexmarkGenerator.CHANNEL_BYTES;
import static dev.tide.stream.nexmark.NexmarkGenerator.CITY_BYTES;
import static dev.tide.stream.nexmark.NexmarkGenerator.CREDIT_CARD_BYTES;
import static dev.tide.stream.nexmark.NexmarkGenerator.DESCRIPTION_BYTES;
import static dev.tide.stream.nexmark.NexmarkGenerator.EXTRA_BYTES;
import static dev.tide.stream.nexmark.NexmarkGenerator.FIRST_AUCTION_ID;
import static dev.tide.stream.nexmark.NexmarkGenerator.FIRST_CATEGORY;
import static dev.tide.stream.nexmark.NexmarkGenerator.FIRST_PERSON_ID;
import static dev.tide.stream.nexmark.NexmarkGenerator.ITEM_NAME_BYTES;
import static dev.tide.stream.nexmark.NexmarkGenerator.MAX_EMAIL_BYTES;
import static dev.tide.stream.nexmark.NexmarkGenerator.MAX_URL_BYTES;
import static dev.tide.stream.nexmark.NexmarkGenerator.NAME_BYTES;
import static dev.tide.stream.nexmark.NexmarkGenerator.NUM_CATEGORIES;
import static dev.tide.stream.nexmark.NexmarkGenerator.STATE_BYTES;
import static dev.tide.stream.nexmark.NexmarkGenerator.S_CATEGORY;
import static dev.tide.stream.nexmark.NexmarkGenerator.S_CHANNEL;
import static dev.tide.stream.nexmark.NexmarkGenerator.S_CITY;
import static dev.tide.stream.nexmark.NexmarkGenerator.S_DESCRIPTION;
import static dev.tide.stream.nexmark.NexmarkGenerator.S_EXTRA;
import static dev.tide.stream.nexmark.NexmarkGenerator.S_INITIAL_BID;
import static dev.tide.stream.nexmark.NexmarkGenerator.S_ITEM;
import static dev.tide.stream.nexmark.NexmarkGenerator.S_NAME;
import static dev.tide.stream.nexmark.NexmarkGenerator.S_PRICE;
import static dev.tide.stream.nexmark.NexmarkGenerator.S_RESERVE;
import static dev.tide.stream.nexmark.NexmarkGenerator.S_STATE;
import static dev.tide.stream.nexmark.NexmarkGenerator.URL_PREFIX_BYTES;
import static dev.tide.stream.nexmark.NexmarkGenerator.pick;
import static dev.tide.stream.nexmark.NexmarkGenerator.price;
import static dev.tide.stream.nexmark.NexmarkGenerator.urlNumber;
import static dev.tide.stream.nexmark.NexmarkGenerator.writeCreditCard;
import static dev.tide.stream.nexmark.NexmarkGenerator.writeDecimal;
import static dev.tide.stream.nexmark.NexmarkGenerator.writeEmail;

import dev.tide.common.chunk.Column;
import dev.tide.common.chunk.LongColumn;
import dev.tide.common.chunk.Op;
import dev.tide.common.chunk.StreamChunk;
import dev.tide.common.chunk.StringColumn;
import dev.tide.common.types.DataType;
import dev.tide.common.types.Schema;
import java.util.Arrays;

/**
 * Builds chunks of inserts of one table's events, column by column: the caller {@link #add}s the
 * ordinals of a chunk's rows, then {@link #take}s the chunk. Only the chosen columns are computed,
 * each in one loop over the rows; a value is the one {@link NexmarkGenerator#row} gives, because
 * every field is a pure function of its event's id (no shared random sequence to keep in step).
 *
 * <p>Thread-safety: confined to one thread (a source actor's).
 */
public final class NexmarkBatch {
  private final NexmarkGenerator generator;
  private final NexmarkTable table;
  private final String[] names;
  private final int capacity;
  private final long[] ordinals;
  private final long[] eventIds;
  private final long[] bases;
  private final int[] picks;
  /** The rows' initial bids, which reserve adds to, once computed for the chunk being taken. */
  private final long[] initialBids;
  private boolean initialBidsReady;
  private int size;

  /**
   * @param columns indexes into {@code table.schema()}, distinct, in output order
   * @param capacity rows per chunk, at least 1
   */
  NexmarkBatch(NexmarkGenerator generator, NexmarkTable table, int[] columns, int capacity) {
    if (capacity < 1) {
      throw new IllegalArgumentException("nexmark batch capacity " + capacity + " must be at least 1");
    }
    Schema schema = table.schema();
    this.names = new String[columns.length];
    for (int i = 0; i < columns.length; i++) {
      int c = columns[i];
      if (c < 0 || c >= schema.size()) {
        throw new IllegalArgumentException("nexmark " + table.tableName() + " has columns 0.." + (schema.size() - 1)
            + " " + schema.names() + "; column " + c + " does not exist");
      }
      for (int j = 0; j < i; j++) {
        if (columns[j] == c) {
          throw new IllegalArgumentException("nexmark " + table.tableName() + " column " + c + " ('" + schema.field(c).name()
              + "') is asked for twice in " + Arrays.toString(columns));
        }
      }
      names[i] = schema.field(c).name();
    }
    this.generator = generator;
    this.table = table;
    this.capacity = capacity;
    this.ordinals = new long[capacity];
    this.eventIds = new long[capacity];
    this.bases = new long[capacity];
    this.picks = new int[capacity];
    this.initialBids = table == NexmarkTable.AUCTION ? new long[capacity] : null;
  }

  public int size() {
    return size;
  }

  public boolean isFull() {
    return size == capacity;
  }

  /** Adds the {@code ordinal}-th event of the table as the next row; the batch must not be full. */
  public void add(long ordinal) {
    if (size == capacity) {
      throw new IllegalStateException("nexmark batch of " + table.tableName() + " is full (" + capacity + " rows); take() it first");
    }
    ordinals[size++] = ordinal;
  }

  /** The added rows as a chunk of inserts with the chosen columns, or null if none; the batch is then empty. */
  public StreamChunk take() {
    int n = size;
    if (n == 0) {
      return null;
    }
    for (int i = 0; i < n; i++) {
      long e = NexmarkGenerator.eventId(table, ordinals[i]);
      eventIds[i] = e;
      bases[i] = generator.eventBase(e);
    }
    initialBidsReady = false;
    Column[] cols = new Column[names.length];
    for (int c = 0; c < cols.length; c++) {
      cols[c] = switch (table) {
        case PERSON -> personColumn(names[c], n);
        case AUCTION -> auctionColumn(names[c], n);
        case BID -> bidColumn(names[c], n);
      };
    }
    byte[] ops = new byte[n];
    Arrays.fill(ops, Op.INSERT.code());
    size = 0;
    return new StreamChunk(ops, cols, n, null);
  }

  private Column personColumn(String name, int n) {
    long[] b = bases;
    return switch (name) {
      case "id" -> {
        long[] v = new long[n];
        for (int i = 0; i < n; i++) {
          v[i] = FIRST_PERSON_ID + ordinals[i];
        }
        yield longs(DataType.BIGINT, v, n);
      }
      case "name" -> choices(NAME_BYTES, S_NAME, n);
      case "email_address" -> {
        byte[] data = new byte[n * MAX_EMAIL_BYTES];
        int[] offsets = new int[n + 1];
        int pos = 0;
        for (int i = 0; i < n; i++) {
          pos = writeEmail(data, pos, b[i], pick(b[i], S_NAME, NAME_BYTES.length));
          offsets[i + 1] = pos;
        }
        yield new StringColumn(data, offsets, n, null);
      }
      case "credit_card" -> {
        byte[] data = new byte[n * CREDIT_CARD_BYTES];
        int[] offsets = new int[n + 1];
        int pos = 0;
        for (int i = 0; i < n; i++) {
          pos = writeCreditCard(data, pos, b[i]);
          offsets[i + 1] = pos;
        }
        yield new StringColumn(data, offsets, n, null);
      }
      case "city" -> choices(CITY_BYTES, S_CITY, n);
      case "state" -> choices(STATE_BYTES, S_STATE, n);
      case "date_time" -> eventTimes(n);
      case "extra" -> choices(EXTRA_BYTES, S_EXTRA, n);
      default -> throw unknown(name);
    };
  }

  private Column auctionColumn(String name, int n) {
    long[] e = eventIds;
    long[] b = bases;
    return switch (name) {
      case "id" -> {
        long[] v = new long[n];
        for (int i = 0; i < n; i++) {
          v[i] = FIRST_AUCTION_ID + ordinals[i];
        }
        yield longs(DataType.BIGINT, v, n);
      }
      case "item_name" -> choices(ITEM_NAME_BYTES, S_ITEM, n);
      case "description" -> choices(DESCRIPTION_BYTES, S_DESCRIPTION, n);
      case "initial_bid" -> longs(DataType.BIGINT, Arrays.copyOf(initialBids(n), n), n);
      case "reserve" -> {
        long[] initial = initialBids(n);
        long[] v = new long[n];
        for (int i = 0; i < n; i++) {
          v[i] = initial[i] + price(b[i], S_RESERVE);
        }
        yield longs(DataType.BIGINT, v, n);
      }
      case "date_time" -> eventTimes(n);
      case "expires" -> {
        long[] v = new long[n];
        for (int i = 0; i < n; i++) {
          v[i] = generator.config().eventTimeMillis(e[i]) + generator.auctionDurationMillis(b[i]);
        }
        yield longs(DataType.TIMESTAMP, v, n);
      }
      case "seller" -> {
        long[] v = new long[n];
        for (int i = 0; i < n; i++) {
          v[i] = generator.seller(e[i], b[i]);
        }
        yield longs(DataType.BIGINT, v, n);
      }
      case "category" -> {
        long[] v = new long[n];
        for (int i = 0; i < n; i++) {
          v[i] = FIRST_CATEGORY + pick(b[i], S_CATEGORY, NUM_CATEGORIES);
        }
        yield longs(DataType.BIGINT, v, n);
      }
      case "extra" -> choices(EXTRA_BYTES, S_EXTRA, n);
      default -> throw unknown(name);
    };
  }

  private Column bidColumn(String name, int n) {
    long[] e = eventIds;
    long[] b = bases;
    return switch (name) {
      case "auction" -> {
        long[] v = new long[n];
        for (int i = 0; i < n; i++) {
          v[i] = generator.bidAuction(e[i], b[i]);
        }
        yield longs(DataType.BIGINT, v, n);
      }
      case "bidder" -> {
        long[] v = new long[n];
        for (int i = 0; i < n; i++) {
          v[i] = generator.bidder(e[i], b[i]);
        }
        yield longs(DataType.BIGINT, v, n);
      }
      case "price" -> {
        long[] v = new long[n];
        for (int i = 0; i < n; i++) {
          v[i] = price(b[i], S_PRICE);
        }
        yield longs(DataType.BIGINT, v, n);
      }
      case "channel" -> choices(CHANNEL_BYTES, S_CHANNEL, n);
      case "url" -> {
        byte[] data = new byte[n * MAX_URL_BYTES];
        int[] offsets = new int[n + 1];
        int pos = 0;
        for (int i = 0; i < n; i++) {
          byte[] prefix = URL_PREFIX_BYTES[pick(b[i], S_CHANNEL, CHANNEL_BYTES.length)];
          System.arraycopy(prefix, 0, data, pos, prefix.length);
          pos = writeDecimal(data, pos + prefix.length, urlNumber(b[i]));
          offsets[i + 1] = pos;
        }
        yield new StringColumn(data, offsets, n, null);
      }
      case "date_time" -> eventTimes(n);
      case "extra" -> choices(EXTRA_BYTES, S_EXTRA, n);
      case "_row_id" -> longs(DataType.BIGINT, Arrays.copyOf(e, n), n);
      default -> throw unknown(name);
    };
  }

  private long[] initialBids(int n) {
    if (!initialBidsReady) {
      for (int i = 0; i < n; i++) {
        initialBids[i] = price(bases[i], S_INITIAL_BID);
      }
      initialBidsReady = true;
    }
    return initialBids;
  }

  private Column eventTimes(int n) {
    NexmarkConfig config = generator.config();
    long[] v = new long[n];
    for (int i = 0; i < n; i++) {
      v[i] = config.eventTimeMillis(eventIds[i]);
    }
    return longs(DataType.TIMESTAMP, v, n);
  }

  /** A column whose row {@code i} is {@code values[pick(bases[i], slot, values.length)]}, in one exactly sized array. */
  private StringColumn choices(byte[][] values, int slot, int n) {
    int total = 0;
    for (int i = 0; i < n; i++) {
      int p = pick(bases[i], slot, values.length);
      picks[i] = p;
      total += values[p].length;
    }
    byte[] data = new byte[total];
    int[] offsets = new int[n + 1];
    int pos = 0;
    for (int i = 0; i < n; i++) {
      byte[] v = values[picks[i]];
      System.arraycopy(v, 0, data, pos, v.length);
      pos += v.length;
      offsets[i + 1] = pos;
    }
    return new StringColumn(data, offsets, n, null);
  }

  private static LongColumn longs(DataType type, long[] values, int n) {
    return new LongColumn(type, values, n, null);
  }

  private AssertionError unknown(String name) {
    return new AssertionError("nexmark " + table.tableName() + " has no generator for column '" + name + "'");
  }
}
