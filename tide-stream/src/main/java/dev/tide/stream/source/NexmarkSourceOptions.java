package dev.tide.stream.source;

import dev.tide.common.config.Config;
import dev.tide.common.config.ConfigOption;
import java.util.List;
import java.util.Map;

/** Options of the {@code nexmark} source connector, declared once and validated when a plan is built. */
public final class NexmarkSourceOptions {
  public static final ConfigOption<Long> EVENTS = ConfigOption.longOption("events", -1L,
      "Total events of the generated stream (all tables); the source stops after them. -1: unbounded.")
      .withRule(v -> v >= -1, "-1 (unbounded) or a non-negative count");
  public static final ConfigOption<Long> RATE = ConfigOption.longOption("rate", 0L,
      "Events per second emitted by the whole source across its actors; 0: as fast as possible.")
      .withRule(v -> v >= 0, "0 (unlimited) or a positive rate");
  public static final ConfigOption<String> RATE_STEPS = ConfigOption.stringOption("rate-steps", "",
      "Changes of the rate over the job's life, OFFSET:RATE separated by commas (30s:40000,90s:10000: 40,000 events/s"
      + " from 30 s after the job was created, 10,000 from 90 s); needs a positive rate.")
      .withRule(RateSchedule::valid, "steps OFFSET:RATE with rising offsets and positive rates, such as 30s:40000,90s:10000");
  public static final ConfigOption<Long> SEED = ConfigOption.longOption("seed", 42L, "Seed of the generator.");
  public static final ConfigOption<Long> EVENT_TIME_RATE = ConfigOption.longOption("event-time-rate", 10_000L,
      "Events per second of event time: event e has date_time = base + e * 1000 / event-time-rate ms.")
      .withRule(v -> v > 0, "a positive rate");
  public static final ConfigOption<Integer> SPLITS = ConfigOption.intOption("splits", 8,
      "Number of splits of the source; actors share them, so parallelism above it leaves actors idle.")
      .withRule(v -> v >= 1 && v <= 4096, "between 1 and 4096");

  public static final ConfigOption<Long> WATERMARK_DELAY_MS = ConfigOption.longOption("watermark-delay-ms", 0L,
      "Milliseconds the source's event-time watermark trails the event time of its next event (SQL: WATERMARK FOR date_time"
      + " AS date_time - INTERVAL ...); windows that close on watermarks close that much later.")
      .withRule(v -> v >= 0, "0 or a positive number of milliseconds");

  public static final ConfigOption<Long> ALIGNMENT_DRIFT_MS = ConfigOption.longOption("alignment-drift-ms", 10_000L,
      "Event-time milliseconds this source may run ahead of the job's slowest Nexmark source on its node (watermark"
      + " alignment: a join of a sparse and a dense table then holds only the rows in flight); 0: not aligned.")
      .withRule(v -> v >= 0, "0 (not aligned) or a positive number of milliseconds");

  public static final List<ConfigOption<?>> ALL =
      List.of(EVENTS, RATE, RATE_STEPS, SEED, EVENT_TIME_RATE, SPLITS, WATERMARK_DELAY_MS, ALIGNMENT_DRIFT_MS);

  private NexmarkSourceOptions() {}

  public static Config parse(Map<String, String> options) {
    return Config.parse(options, ALL);
  }
}
