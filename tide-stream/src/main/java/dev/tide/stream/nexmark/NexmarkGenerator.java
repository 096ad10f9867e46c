package dev.tide.stream.nexmark;

import dev.tide.common.chunk.ChunkBuilder;
import dev.tide.common.chunk.ColumnBuilder;
import java.nio.charset.StandardCharsets;
import java.util.Objects;

/**
 * Deterministic, seeded Nexmark event generator. Every event is a pure function of the config and
 * its global event id, so any split of the id space can generate any event independently and in any
 * order.
 *
 * <p>Event mix: ids are grouped in blocks of {@value #BLOCK_EVENTS}; offset 0 of a block is a person,
 * offsets 1..3 are auctions and offsets 4..49 are bids (1:3:46). The {@code k}-th (0-based) person
 * has id {@code FIRST_PERSON_ID + k}, the {@code k}-th auction id {@code FIRST_AUCTION_ID + k}.
 *
 * <p>Referential integrity: an auction's seller is a person whose event id is smaller than the
 * auction's; a bid's bidder and auction are a person and an auction with smaller event ids. Hot
 * choices pick the most recent ordinal divisible by the hot ratio; others are uniform among the last
 * {@code numActivePeople} persons or {@code numInFlightAuctions} auctions.
 *
 * <p>Randomness: draw {@code s} of event {@code e} is {@code mix64(base(e) + s * GAMMA)} with
 * {@code base(e) = mix64(mix64(seed) + e * GAMMA)}; each field owns a fixed slot {@code s}, so the
 * value of a field does not depend on which other fields were drawn.
 *
 * <p>Rows come three ways with equal values: boxed ({@link #row}, the reference), appended to a
 * chunk builder ({@link #appendRow}), or a chunk at a time with chosen columns ({@link #batch}, what
 * sources use: it computes only those columns).
 *
 * <p>Thread-safety: immutable; all methods may be called from any thread (a {@link NexmarkBatch} is
 * confined). {@link #appendRow} does not allocate per row (its scratch buffer for composed strings
 * is thread-local).
 */
public final class NexmarkGenerator {
  /** Events per block of the standard mix. */
  public static final int BLOCK_EVENTS = 50;
  public static final int PERSONS_PER_BLOCK = 1;
  public static final int AUCTIONS_PER_BLOCK = 3;
  public static final int BIDS_PER_BLOCK = 46;
  public static final long FIRST_PERSON_ID = 1000;
  public static final long FIRST_AUCTION_ID = 1000;
  /** Auctions have categories {@code FIRST_CATEGORY .. FIRST_CATEGORY + NUM_CATEGORIES - 1}. */
  public static final long FIRST_CATEGORY = 10;
  public static final int NUM_CATEGORIES = 5;

  private static final int FIRST_AUCTION_OFFSET = PERSONS_PER_BLOCK;
  private static final int FIRST_BID_OFFSET = PERSONS_PER_BLOCK + AUCTIONS_PER_BLOCK;
  private static final long GAMMA = 0x9E3779B97F4A7C15L;

  // Draw slots, one per random field. Slots, value tables and field functions are package-private:
  // NexmarkBatch composes the same fields column by column.
  static final int S_NAME = 0;
  static final int S_EMAIL_NUMBER = 1;
  static final int S_EMAIL_DOMAIN = 2;
  static final int S_CARD = 3;
  static final int S_CITY = 4;
  static final int S_STATE = 5;
  static final int S_EXTRA = 6;
  static final int S_ITEM = 7;
  static final int S_DESCRIPTION = 8;
  static final int S_INITIAL_BID = 9;
  static final int S_RESERVE = 10;
  static final int S_DURATION = 11;
  static final int S_SELLER_HOT = 12;
  static final int S_SELLER = 13;
  static final int S_CATEGORY = 14;
  static final int S_AUCTION_HOT = 15;
  static final int S_AUCTION = 16;
  static final int S_BIDDER_HOT = 17;
  static final int S_BIDDER = 18;
  static final int S_PRICE = 19;
  static final int S_CHANNEL = 20;
  static final int S_URL = 21;

  private static final String[] FIRST_NAMES = {
    "Ada", "Bruno", "Chiara", "Dmitri", "Elif", "Femi", "Greta", "Hiro", "Ines", "Jonas"
  };
  private static final String[] LAST_NAMES = {
    "Abara", "Berg", "Castillo", "Duval", "Eklund", "Fontaine", "Gruber", "Haas", "Iwata", "Jovanovic"
  };
  private static final String[] EMAIL_DOMAINS = {"@tide.dev", "@mail.example", "@inbox.test", "@post.example"};
  private static final String[] CITIES = {
    "Phoenix", "Tucson", "Fresno", "Oakland", "Boise", "Nampa", "Bend", "Salem", "Spokane", "Tacoma", "Casper", "Laramie"
  };
  /** Includes OR, ID and CA, which Nexmark q3 filters on. */
  private static final String[] STATES = {"AZ", "CA", "ID", "OR", "WA", "WY"};
  private static final String[] ITEM_ADJECTIVES = {"old", "red", "rare", "tiny", "brass", "oak", "silk", "mint"};
  private static final String[] ITEM_NOUNS = {"lamp", "clock", "chair", "vase", "radio", "coin", "map", "kite"};
  private static final String[] DESCRIPTIONS = {
    "as new", "some wear", "boxed", "for parts", "signed", "collector piece"
  };
  private static final String[] CHANNELS = {"Google", "Facebook", "Baidu", "Apple"};
  private static final String[] URL_PREFIXES = {
    "https://www.google.com/item?id=",
    "https://www.facebook.com/item?id=",
    "https://www.baidu.com/item?id=",
    "https://www.apple.com/item?id="
  };
  private static final String[] EXTRAS = {"", "", "x", "ab", "tide", "", "note", "zz9"};

  private static final String[] NAMES = cross(FIRST_NAMES, " ", LAST_NAMES);
  private static final String[] EMAIL_LOCALS = lowerCase(cross(FIRST_NAMES, ".", LAST_NAMES));
  private static final String[] ITEM_NAMES = cross(ITEM_ADJECTIVES, " ", ITEM_NOUNS);

  static final byte[][] NAME_BYTES = ascii(NAMES);
  static final byte[][] EMAIL_LOCAL_BYTES = ascii(EMAIL_LOCALS);
  static final byte[][] EMAIL_DOMAIN_BYTES = ascii(EMAIL_DOMAINS);
  static final byte[][] CITY_BYTES = ascii(CITIES);
  static final byte[][] STATE_BYTES = ascii(STATES);
  static final byte[][] ITEM_NAME_BYTES = ascii(ITEM_NAMES);
  static final byte[][] DESCRIPTION_BYTES = ascii(DESCRIPTIONS);
  static final byte[][] CHANNEL_BYTES = ascii(CHANNELS);
  static final byte[][] URL_PREFIX_BYTES = ascii(URL_PREFIXES);
  static final byte[][] EXTRA_BYTES = ascii(EXTRAS);

  static final int MAX_EMAIL_BYTES = maxLength(EMAIL_LOCAL_BYTES) + 3 + maxLength(EMAIL_DOMAIN_BYTES);
  static final int CREDIT_CARD_BYTES = 19;
  /** Longest url: prefix and a number below 10^6. */
  static final int MAX_URL_BYTES = maxLength(URL_PREFIX_BYTES) + 6;

  /** Longest composed string (email or credit card) is well under this. */
  private static final int SCRATCH_BYTES = 64;
  private static final ThreadLocal<byte[]> SCRATCH = ThreadLocal.withInitial(() -> new byte[SCRATCH_BYTES]);

  private final NexmarkConfig config;
  private final long seedMix;

  public NexmarkGenerator(NexmarkConfig config) {
    this.config = Objects.requireNonNull(config, "config");
    this.seedMix = mix64(config.seed());
  }

  public NexmarkConfig config() {
    return config;
  }

  // ---------------------------------------------------------------- id arithmetic

  /** Global event id of the {@code ordinal}-th (0-based) event of table {@code t}. */
  public static long eventId(NexmarkTable t, long ordinal) {
    if (ordinal < 0) {
      throw new IllegalArgumentException("eventId of " + t + " refused: ordinal " + ordinal + " must be >= 0");
    }
    return switch (t) {
      case PERSON -> ordinal * BLOCK_EVENTS;
      case AUCTION -> ordinal / AUCTIONS_PER_BLOCK * BLOCK_EVENTS + FIRST_AUCTION_OFFSET + ordinal % AUCTIONS_PER_BLOCK;
      case BID -> ordinal / BIDS_PER_BLOCK * BLOCK_EVENTS + FIRST_BID_OFFSET + ordinal % BIDS_PER_BLOCK;
    };
  }

  /** How many events of table {@code t} have an event id below {@code totalEvents} (0 if it is <= 0). */
  public static long ordinalsBelow(NexmarkTable t, long totalEvents) {
    if (totalEvents <= 0) {
      return 0;
    }
    long blocks = totalEvents / BLOCK_EVENTS;
    int rem = (int) (totalEvents % BLOCK_EVENTS);
    return switch (t) {
      case PERSON -> blocks * PERSONS_PER_BLOCK + Math.min(rem, PERSONS_PER_BLOCK);
      case AUCTION -> blocks * AUCTIONS_PER_BLOCK + Math.max(0, Math.min(rem - FIRST_AUCTION_OFFSET, AUCTIONS_PER_BLOCK));
      case BID -> blocks * BIDS_PER_BLOCK + Math.max(0, rem - FIRST_BID_OFFSET);
    };
  }

  /** The table event {@code eventId} belongs to. */
  public static NexmarkTable tableOf(long eventId) {
    if (eventId < 0) {
      throw new IllegalArgumentException("tableOf refused: event id " + eventId + " must be >= 0");
    }
    int offset = (int) (eventId % BLOCK_EVENTS);
    return offset < FIRST_AUCTION_OFFSET ? NexmarkTable.PERSON
        : offset < FIRST_BID_OFFSET ? NexmarkTable.AUCTION : NexmarkTable.BID;
  }

  /** The ordinal of event {@code eventId} within its table ({@link #tableOf}); inverse of {@link #eventId}. */
  public static long ordinalOf(long eventId) {
    return ordinalsBelow(tableOf(eventId), eventId);
  }

  // ---------------------------------------------------------------- rows

  /**
   * Appends the {@code ordinal}-th event of {@code t} to {@code out.column(0..n)} in schema order; the
   * caller then calls {@code out.finishRow(...)}. {@code out} must have {@code t.schema()}'s types.
   */
  public void appendRow(NexmarkTable t, long ordinal, ChunkBuilder out) {
    switch (t) {
      case PERSON -> appendPerson(ordinal, out);
      case AUCTION -> appendAuction(ordinal, out);
      case BID -> appendBid(ordinal, out);
      default -> throw new AssertionError(t);
    }
  }

  /**
   * A batch that builds chunks of {@code t}'s events with the given columns (indexes into
   * {@code t.schema()}, distinct, in output order), up to {@code capacity} rows each; the values are
   * {@link #row}'s. Use it where only some columns are needed or rows come by the chunk: it computes
   * nothing for the other columns.
   */
  public NexmarkBatch batch(NexmarkTable t, int[] columns, int capacity) {
    return new NexmarkBatch(this, t, columns.clone(), capacity);
  }

  /** The same values {@link #appendRow} writes, boxed (Long for BIGINT and TIMESTAMP, String for VARCHAR). */
  public Object[] row(NexmarkTable t, long ordinal) {
    return switch (t) {
      case PERSON -> personRow(ordinal);
      case AUCTION -> auctionRow(ordinal);
      case BID -> bidRow(ordinal);
    };
  }

  private void appendPerson(long ordinal, ChunkBuilder out) {
    long e = eventId(NexmarkTable.PERSON, ordinal);
    long base = eventBase(e);
    int name = pick(base, S_NAME, NAMES.length);
    byte[] buf = SCRATCH.get();
    longs(out, 0).append(FIRST_PERSON_ID + ordinal);
    strings(out, 1).append(NAME_BYTES[name], 0, NAME_BYTES[name].length);
    strings(out, 2).append(buf, 0, writeEmail(buf, 0, base, name));
    strings(out, 3).append(buf, 0, writeCreditCard(buf, 0, base));
    appendConst(out, 4, CITY_BYTES[pick(base, S_CITY, CITIES.length)]);
    appendConst(out, 5, STATE_BYTES[pick(base, S_STATE, STATES.length)]);
    longs(out, 6).append(config.eventTimeMillis(e));
    appendConst(out, 7, EXTRA_BYTES[pick(base, S_EXTRA, EXTRAS.length)]);
  }

  private Object[] personRow(long ordinal) {
    long e = eventId(NexmarkTable.PERSON, ordinal);
    long base = eventBase(e);
    int name = pick(base, S_NAME, NAMES.length);
    byte[] buf = new byte[SCRATCH_BYTES];
    return new Object[] {
      FIRST_PERSON_ID + ordinal,
      NAMES[name],
      new String(buf, 0, writeEmail(buf, 0, base, name), StandardCharsets.US_ASCII),
      new String(buf, 0, writeCreditCard(buf, 0, base), StandardCharsets.US_ASCII),
      CITIES[pick(base, S_CITY, CITIES.length)],
      STATES[pick(base, S_STATE, STATES.length)],
      config.eventTimeMillis(e),
      EXTRAS[pick(base, S_EXTRA, EXTRAS.length)]
    };
  }

  private void appendAuction(long ordinal, ChunkBuilder out) {
    long e = eventId(NexmarkTable.AUCTION, ordinal);
    long base = eventBase(e);
    long initialBid = price(base, S_INITIAL_BID);
    long dateTime = config.eventTimeMillis(e);
    longs(out, 0).append(FIRST_AUCTION_ID + ordinal);
    appendConst(out, 1, ITEM_NAME_BYTES[pick(base, S_ITEM, ITEM_NAMES.length)]);
    appendConst(out, 2, DESCRIPTION_BYTES[pick(base, S_DESCRIPTION, DESCRIPTIONS.length)]);
    longs(out, 3).append(initialBid);
    longs(out, 4).append(initialBid + price(base, S_RESERVE));
    longs(out, 5).append(dateTime);
    longs(out, 6).append(dateTime + auctionDurationMillis(base));
    longs(out, 7).append(seller(e, base));
    longs(out, 8).append(FIRST_CATEGORY + pick(base, S_CATEGORY, NUM_CATEGORIES));
    appendConst(out, 9, EXTRA_BYTES[pick(base, S_EXTRA, EXTRAS.length)]);
  }

  private Object[] auctionRow(long ordinal) {
    long e = eventId(NexmarkTable.AUCTION, ordinal);
    long base = eventBase(e);
    long initialBid = price(base, S_INITIAL_BID);
    long dateTime = config.eventTimeMillis(e);
    return new Object[] {
      FIRST_AUCTION_ID + ordinal,
      ITEM_NAMES[pick(base, S_ITEM, ITEM_NAMES.length)],
      DESCRIPTIONS[pick(base, S_DESCRIPTION, DESCRIPTIONS.length)],
      initialBid,
      initialBid + price(base, S_RESERVE),
      dateTime,
      dateTime + auctionDurationMillis(base),
      seller(e, base),
      FIRST_CATEGORY + pick(base, S_CATEGORY, NUM_CATEGORIES),
      EXTRAS[pick(base, S_EXTRA, EXTRAS.length)]
    };
  }

  private void appendBid(long ordinal, ChunkBuilder out) {
    long e = eventId(NexmarkTable.BID, ordinal);
    long base = eventBase(e);
    int channel = pick(base, S_CHANNEL, CHANNELS.length);
    longs(out, 0).append(bidAuction(e, base));
    longs(out, 1).append(bidder(e, base));
    longs(out, 2).append(price(base, S_PRICE));
    appendConst(out, 3, CHANNEL_BYTES[channel]);
    strings(out, 4).appendAsciiWithNumber(URL_PREFIX_BYTES[channel], urlNumber(base));
    longs(out, 5).append(config.eventTimeMillis(e));
    appendConst(out, 6, EXTRA_BYTES[pick(base, S_EXTRA, EXTRAS.length)]);
    longs(out, 7).append(e);
  }

  private Object[] bidRow(long ordinal) {
    long e = eventId(NexmarkTable.BID, ordinal);
    long base = eventBase(e);
    int channel = pick(base, S_CHANNEL, CHANNELS.length);
    return new Object[] {
      bidAuction(e, base),
      bidder(e, base),
      price(base, S_PRICE),
      CHANNELS[channel],
      URL_PREFIXES[channel] + urlNumber(base),
      config.eventTimeMillis(e),
      EXTRAS[pick(base, S_EXTRA, EXTRAS.length)],
      e
    };
  }

  // ---------------------------------------------------------------- field semantics

  /** Person id of the seller of the auction with event id {@code e}: a person generated before it. */
  long seller(long e, long base) {
    return FIRST_PERSON_ID + recentOrdinal(
        ordinalsBelow(NexmarkTable.PERSON, e), config.hotSellerRatio(), config.numActivePeople(), base, S_SELLER_HOT, S_SELLER);
  }

  /** Person id of the bidder of the bid with event id {@code e}: a person generated before it. */
  long bidder(long e, long base) {
    return FIRST_PERSON_ID + recentOrdinal(
        ordinalsBelow(NexmarkTable.PERSON, e), config.hotBidderRatio(), config.numActivePeople(), base, S_BIDDER_HOT, S_BIDDER);
  }

  /** Auction id of the bid with event id {@code e}: an auction generated before it. */
  long bidAuction(long e, long base) {
    return FIRST_AUCTION_ID + recentOrdinal(
        ordinalsBelow(NexmarkTable.AUCTION, e), config.hotAuctionRatio(), config.numInFlightAuctions(), base, S_AUCTION_HOT, S_AUCTION);
  }

  /**
   * An ordinal below {@code count} (which is >= 1 for every caller: each bid and auction follows a
   * person, each bid follows an auction of its block): with probability {@code (ratio-1)/ratio} the
   * largest multiple of {@code ratio} below {@code count}, else uniform among the last {@code window}.
   */
  private static long recentOrdinal(long count, int ratio, int window, long base, int hotSlot, int slot) {
    if (pick(base, hotSlot, ratio) > 0) {
      return (count - 1) / ratio * ratio;
    }
    long span = Math.min(count, window);
    return count - span + pick(base, slot, (int) span);
  }

  /** {@code round(10^(u*6) * 100)} for uniform u in [0,1): between 100 and 10^8, never 0. */
  static long price(long base, int slot) {
    return Math.round(Math.pow(10.0, unit(base, slot) * 6.0) * 100.0);
  }

  long auctionDurationMillis(long base) {
    return 1 + (long) (unit(base, S_DURATION) * (2 * config.avgAuctionDurationMillis()));
  }

  static long urlNumber(long base) {
    return pick(base, S_URL, 1_000_000);
  }

  /**
   * "first.last" + number below 1000 + domain, written at {@code pos}, at most {@link #MAX_EMAIL_BYTES};
   * returns the position after it.
   */
  static int writeEmail(byte[] buf, int pos, long base, int name) {
    byte[] local = EMAIL_LOCAL_BYTES[name];
    System.arraycopy(local, 0, buf, pos, local.length);
    pos = writeDecimal(buf, pos + local.length, pick(base, S_EMAIL_NUMBER, 1000));
    byte[] domain = EMAIL_DOMAIN_BYTES[pick(base, S_EMAIL_DOMAIN, EMAIL_DOMAINS.length)];
    System.arraycopy(domain, 0, buf, pos, domain.length);
    return pos + domain.length;
  }

  /** Four space-separated groups of four digits ({@link #CREDIT_CARD_BYTES}) at {@code pos}; returns the position after it. */
  static int writeCreditCard(byte[] buf, int pos, long base) {
    long r = draw(base, S_CARD) >>> 1;
    for (int g = 0; g < 4; g++) {
      if (g > 0) {
        buf[pos++] = ' ';
      }
      int group = (int) (r % 10_000);
      r /= 10_000;
      for (int i = 3; i >= 0; i--) {
        buf[pos + i] = (byte) ('0' + group % 10);
        group /= 10;
      }
      pos += 4;
    }
    return pos;
  }

  /** Writes non-negative {@code v} in decimal at {@code pos}; returns the position after it. */
  static int writeDecimal(byte[] buf, int pos, long v) {
    int digits = 1;
    for (long t = v / 10; t > 0; t /= 10) {
      digits++;
    }
    for (int i = digits - 1; i >= 0; i--) {
      buf[pos + i] = (byte) ('0' + v % 10);
      v /= 10;
    }
    return pos + digits;
  }

  // ---------------------------------------------------------------- randomness

  long eventBase(long eventId) {
    return mix64(seedMix + eventId * GAMMA);
  }

  private static long draw(long base, int slot) {
    return mix64(base + (slot + 1) * GAMMA);
  }

  /** Uniform int in {@code [0, bound)} for {@code 1 <= bound <= 2^31-1} (multiply-shift reduction). */
  static int pick(long base, int slot, int bound) {
    return (int) (((draw(base, slot) >>> 32) * bound) >>> 32);
  }

  /** Uniform double in {@code [0, 1)}. */
  private static double unit(long base, int slot) {
    return (draw(base, slot) >>> 11) * 0x1.0p-53;
  }

  /** SplitMix64's finalizer (Stafford's variant 13): a bijective 64-bit mixer. */
  static long mix64(long z) {
    z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
    z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
    return z ^ (z >>> 31);
  }

  // ---------------------------------------------------------------- helpers

  private static ColumnBuilder.Longs longs(ChunkBuilder out, int column) {
    return (ColumnBuilder.Longs) out.column(column);
  }

  private static ColumnBuilder.Strings strings(ChunkBuilder out, int column) {
    return (ColumnBuilder.Strings) out.column(column);
  }

  private static void appendConst(ChunkBuilder out, int column, byte[] value) {
    strings(out, column).append(value, 0, value.length);
  }

  private static String[] cross(String[] left, String separator, String[] right) {
    String[] out = new String[left.length * right.length];
    for (int i = 0; i < left.length; i++) {
      for (int j = 0; j < right.length; j++) {
        out[i * right.length + j] = left[i] + separator + right[j];
      }
    }
    return out;
  }

  private static String[] lowerCase(String[] values) {
    String[] out = new String[values.length];
    for (int i = 0; i < values.length; i++) {
      out[i] = values[i].toLowerCase(java.util.Locale.ROOT);
    }
    return out;
  }

  private static int maxLength(byte[][] values) {
    int max = 0;
    for (byte[] v : values) {
      max = Math.max(max, v.length);
    }
    return max;
  }

  private static byte[][] ascii(String[] values) {
    byte[][] out = new byte[values.length][];
    for (int i = 0; i < values.length; i++) {
      out[i] = values[i].getBytes(StandardCharsets.US_ASCII);
    }
    return out;
  }
}
