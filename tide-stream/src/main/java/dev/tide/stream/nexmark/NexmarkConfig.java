package dev.tide.stream.nexmark;

import dev.tide.common.config.Config;
import dev.tide.common.config.ConfigException;
import dev.tide.common.config.ConfigOption;
import java.time.Duration;
import java.util.List;

/**
 * Parameters of the Nexmark event generator. Every generated event is a pure function of this
 * config and the event's id, so two generators built from equal configs produce identical streams.
 *
 * <p>Event {@code e} happens at {@code baseTimeMillis + e * 1000 / eventsPerSecond} (event time, not
 * wall-clock time). Hot ratios follow the usual Nexmark meaning: with ratio {@code r}, a draw picks the
 * hot (most recent multiple of {@code r}) id with probability {@code (r - 1) / r}; ratio 1 turns the
 * skew off.
 *
 * @param seed seeds every random draw
 * @param eventsPerSecond events per second of event time, across all three tables
 * @param baseTimeMillis event time of event 0, epoch milliseconds
 * @param hotAuctionRatio skew of bids towards the most recent auctions
 * @param hotSellerRatio skew of auctions towards the most recent persons as sellers
 * @param hotBidderRatio skew of bids towards the most recent persons as bidders
 * @param numActivePeople non-hot sellers and bidders are drawn among this many most recent persons
 * @param numInFlightAuctions non-hot bids go to one of this many most recent auctions
 * @param avgAuctionDurationMillis mean of {@code expires - date_time}; durations are uniform in
 *     {@code [1, 2 * avgAuctionDurationMillis]}
 */
public record NexmarkConfig(
    long seed,
    long eventsPerSecond,
    long baseTimeMillis,
    int hotAuctionRatio,
    int hotSellerRatio,
    int hotBidderRatio,
    int numActivePeople,
    int numInFlightAuctions,
    long avgAuctionDurationMillis) {

  /** Latest accepted base time: 2100-01-01T00:00:00Z, far from {@code long} overflow. */
  private static final long MAX_BASE_TIME_MILLIS = 4_102_444_800_000L;

  public static final ConfigOption<Long> SEED =
      ConfigOption.longOption("nexmark.seed", 0L, "Seed of every random draw of the generator.");
  public static final ConfigOption<Long> EVENTS_PER_SECOND =
      ConfigOption.longOption("nexmark.events-per-second", 10_000L,
              "Events per second of event time (all tables together); sets date_time spacing.")
          .withRule(v -> v >= 1 && v <= 1_000_000_000L, "between 1 and 1000000000");
  public static final ConfigOption<Long> BASE_TIME_MILLIS =
      ConfigOption.longOption("nexmark.base-time-ms", 1_735_689_600_000L,
              "Event time of event 0, epoch milliseconds (default 2025-01-01T00:00:00Z).")
          .withRule(v -> v >= 0 && v <= MAX_BASE_TIME_MILLIS, "between 0 and " + MAX_BASE_TIME_MILLIS);
  public static final ConfigOption<Integer> HOT_AUCTION_RATIO =
      ConfigOption.intOption("nexmark.hot-auction-ratio", 2,
              "A bid goes to the most recent auction id divisible by this ratio with probability (r-1)/r.")
          .withRule(v -> v >= 1, "at least 1");
  public static final ConfigOption<Integer> HOT_SELLER_RATIO =
      ConfigOption.intOption("nexmark.hot-seller-ratio", 4,
              "An auction's seller is the most recent person id divisible by this ratio with probability (r-1)/r.")
          .withRule(v -> v >= 1, "at least 1");
  public static final ConfigOption<Integer> HOT_BIDDER_RATIO =
      ConfigOption.intOption("nexmark.hot-bidder-ratio", 4,
              "A bid's bidder is the most recent person id divisible by this ratio with probability (r-1)/r.")
          .withRule(v -> v >= 1, "at least 1");
  public static final ConfigOption<Integer> NUM_ACTIVE_PEOPLE =
      ConfigOption.intOption("nexmark.num-active-people", 1000,
              "Non-hot sellers and bidders are drawn among this many most recent persons.")
          .withRule(v -> v >= 1, "at least 1");
  public static final ConfigOption<Integer> NUM_IN_FLIGHT_AUCTIONS =
      ConfigOption.intOption("nexmark.num-in-flight-auctions", 100,
              "Non-hot bids go to one of this many most recent auctions.")
          .withRule(v -> v >= 1, "at least 1");
  public static final ConfigOption<Duration> AVG_AUCTION_DURATION =
      ConfigOption.durationOption("nexmark.avg-auction-duration", Duration.ofSeconds(2),
              "Mean event-time span between an auction's date_time and its expires.")
          .withRule(v -> v.toMillis() >= 1 && v.compareTo(Duration.ofDays(1)) <= 0, "between 1ms and 1d");

  /** Every option, in declaration order (for docs and {@link Config#parse}). */
  public static final List<ConfigOption<?>> OPTIONS = List.of(
      SEED, EVENTS_PER_SECOND, BASE_TIME_MILLIS, HOT_AUCTION_RATIO, HOT_SELLER_RATIO, HOT_BIDDER_RATIO,
      NUM_ACTIVE_PEOPLE, NUM_IN_FLIGHT_AUCTIONS, AVG_AUCTION_DURATION);

  /** Validates every field; the message names the field, the option key, the value and the rule. */
  public NexmarkConfig {
    check(SEED, "seed", seed, Long.toString(seed));
    check(EVENTS_PER_SECOND, "eventsPerSecond", eventsPerSecond, Long.toString(eventsPerSecond));
    check(BASE_TIME_MILLIS, "baseTimeMillis", baseTimeMillis, Long.toString(baseTimeMillis));
    check(HOT_AUCTION_RATIO, "hotAuctionRatio", hotAuctionRatio, Integer.toString(hotAuctionRatio));
    check(HOT_SELLER_RATIO, "hotSellerRatio", hotSellerRatio, Integer.toString(hotSellerRatio));
    check(HOT_BIDDER_RATIO, "hotBidderRatio", hotBidderRatio, Integer.toString(hotBidderRatio));
    check(NUM_ACTIVE_PEOPLE, "numActivePeople", numActivePeople, Integer.toString(numActivePeople));
    check(NUM_IN_FLIGHT_AUCTIONS, "numInFlightAuctions", numInFlightAuctions, Integer.toString(numInFlightAuctions));
    check(AVG_AUCTION_DURATION, "avgAuctionDurationMillis", Duration.ofMillis(avgAuctionDurationMillis),
        avgAuctionDurationMillis + "ms");
  }

  /** The defaults of every option. */
  public static NexmarkConfig defaults() {
    return fromConfig(Config.defaults());
  }

  /** Reads the {@link #OPTIONS} from a parsed config, taking defaults for unset ones. */
  public static NexmarkConfig fromConfig(Config c) {
    return new NexmarkConfig(
        c.get(SEED),
        c.get(EVENTS_PER_SECOND),
        c.get(BASE_TIME_MILLIS),
        c.get(HOT_AUCTION_RATIO),
        c.get(HOT_SELLER_RATIO),
        c.get(HOT_BIDDER_RATIO),
        c.get(NUM_ACTIVE_PEOPLE),
        c.get(NUM_IN_FLIGHT_AUCTIONS),
        c.get(AVG_AUCTION_DURATION).toMillis());
  }

  public NexmarkConfig withSeed(long newSeed) {
    return new NexmarkConfig(newSeed, eventsPerSecond, baseTimeMillis, hotAuctionRatio, hotSellerRatio,
        hotBidderRatio, numActivePeople, numInFlightAuctions, avgAuctionDurationMillis);
  }

  public NexmarkConfig withEventsPerSecond(long newEventsPerSecond) {
    return new NexmarkConfig(seed, newEventsPerSecond, baseTimeMillis, hotAuctionRatio, hotSellerRatio,
        hotBidderRatio, numActivePeople, numInFlightAuctions, avgAuctionDurationMillis);
  }

  public NexmarkConfig withBaseTimeMillis(long newBaseTimeMillis) {
    return new NexmarkConfig(seed, eventsPerSecond, newBaseTimeMillis, hotAuctionRatio, hotSellerRatio,
        hotBidderRatio, numActivePeople, numInFlightAuctions, avgAuctionDurationMillis);
  }

  public NexmarkConfig withHotRatios(int newHotAuctionRatio, int newHotSellerRatio, int newHotBidderRatio) {
    return new NexmarkConfig(seed, eventsPerSecond, baseTimeMillis, newHotAuctionRatio, newHotSellerRatio,
        newHotBidderRatio, numActivePeople, numInFlightAuctions, avgAuctionDurationMillis);
  }

  public NexmarkConfig withNumActivePeople(int newNumActivePeople) {
    return new NexmarkConfig(seed, eventsPerSecond, baseTimeMillis, hotAuctionRatio, hotSellerRatio,
        hotBidderRatio, newNumActivePeople, numInFlightAuctions, avgAuctionDurationMillis);
  }

  public NexmarkConfig withNumInFlightAuctions(int newNumInFlightAuctions) {
    return new NexmarkConfig(seed, eventsPerSecond, baseTimeMillis, hotAuctionRatio, hotSellerRatio,
        hotBidderRatio, numActivePeople, newNumInFlightAuctions, avgAuctionDurationMillis);
  }

  public NexmarkConfig withAvgAuctionDurationMillis(long newAvgAuctionDurationMillis) {
    return new NexmarkConfig(seed, eventsPerSecond, baseTimeMillis, hotAuctionRatio, hotSellerRatio,
        hotBidderRatio, numActivePeople, numInFlightAuctions, newAvgAuctionDurationMillis);
  }

  /** Event time of event {@code eventId}, epoch milliseconds. */
  public long eventTimeMillis(long eventId) {
    return baseTimeMillis + eventId * 1000 / eventsPerSecond;
  }

  /**
   * How many event ids have an event time at or before {@code timeMillis} (they are the first ones,
   * as event time grows with the id); {@link Long#MAX_VALUE} past the range of longs.
   */
  public long eventIdsUpTo(long timeMillis) {
    if (timeMillis < baseTimeMillis) {
      return 0;
    }
    long span = timeMillis - baseTimeMillis + 1; // ids with time < timeMillis + 1: id * 1000 < span * rate
    if (span < 0 || span > (Long.MAX_VALUE - 999) / eventsPerSecond) {
      return Long.MAX_VALUE;
    }
    return (span * eventsPerSecond + 999) / 1000;
  }

  private static <T> void check(ConfigOption<T> option, String field, T value, String shown) {
    try {
      option.validate(value);
    } catch (ConfigException e) {
      throw new ConfigException(option.key(),
          "NexmarkConfig." + field + " = " + shown + " is invalid: must be " + option.ruleText());
    }
  }
}
