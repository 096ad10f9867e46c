package dev.tide.connectors.kafka;

import dev.tide.common.config.Config;
import dev.tide.common.config.ConfigOption;
import dev.tide.common.types.DataType;
import dev.tide.common.types.Field;
import dev.tide.common.types.Schema;
import dev.tide.connectors.format.AvroFormat;
import dev.tide.connectors.format.RowFormat;
import dev.tide.stream.connector.SourceConnector;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;

/**
 * Validated options of a Kafka source ({@link #parse}: options map in, typed value out). The
 * source's columns are {@code columns} (json, avro; for avro with an inline schema they default to
 * its fields) or {@code value varchar} (text), then {@code _partition int} and {@code _offset bigint},
 * its stream key.
 *
 * @param avroSchema format avro with {@code avro.schema}: the writer schema, else null
 * @param registryUrl format avro with a registry: its base URL, else empty
 * @param registryAuth {@code user:password} for the registry, or empty
 * @param startTimestampMs with {@link StartPosition#TIMESTAMP}: epoch milliseconds, else -1
 */
public record KafkaSourceOptions(String bootstrap, String topic, RowFormat.Kind format, Schema columns, int splits,
    boolean skipErrors, String eventTimeColumn, Duration watermarkDelay, Duration discoveryInterval, Duration requestTimeout,
    Properties client, org.apache.avro.Schema avroSchema, String registryUrl, String registryAuth, StartPosition startPosition,
    long startTimestampMs) {

  /** Where a partition the source has never read starts (partitions a running source discovers start at their beginning). */
  public enum StartPosition { EARLIEST, LATEST, TIMESTAMP }

  public static final ConfigOption<String> COLUMNS = ConfigOption.stringOption("columns", null,
      "json, avro: the columns, 'name type, name type, ...' (boolean, int, bigint, double, varchar, timestamp); avro with avro.schema: default its fields.");
  public static final ConfigOption<Integer> SPLITS = ConfigOption.intOption("splits", 16,
      "Splits the source's actors share; partition p belongs to split p mod splits, so parallelism above it leaves actors idle.")
      .withRule(v -> v >= 1 && v <= 4096, "between 1 and 4096");
  public static final ConfigOption<String> ON_ERROR = ConfigOption.stringOption("on-error", "fail",
      "A record that does not decode: fail (the job fails, naming topic, partition and offset) or skip (counted, offset passed).")
      .withRule(v -> v.equals("fail") || v.equals("skip"), "fail or skip");
  public static final ConfigOption<String> EVENT_TIME = ConfigOption.stringOption(SourceConnector.EVENT_TIME_COLUMN, "",
      "A timestamp column that carries a watermark: the least, over the actor's partitions that have rows, of the largest event time read, minus watermark-delay.");
  public static final ConfigOption<Duration> WATERMARK_DELAY = ConfigOption.durationOption("watermark-delay", Duration.ZERO,
      "How far the watermark stays behind the event time read (rows later than that are late).")
      .withRule(d -> !d.isNegative(), "zero or a positive duration");
  public static final ConfigOption<Duration> DISCOVERY = ConfigOption.durationOption("partition-discovery-interval", Duration.ofSeconds(10),
      "How often a source actor lists the topic's partitions to pick up new ones (read from their beginning).")
      .withRule(d -> !d.isNegative() && !d.isZero(), "a positive duration");
  public static final ConfigOption<String> START_POSITION = ConfigOption.stringOption("start-position", "earliest",
      "Where the job starts reading the partitions the topic has when it starts: earliest (their beginning), latest (their end) or timestamp (the first record at or after start-timestamp).")
      .withRule(v -> v.equals("earliest") || v.equals("latest") || v.equals("timestamp"), "earliest, latest or timestamp");
  public static final ConfigOption<String> START_TIMESTAMP = ConfigOption.stringOption("start-timestamp", "",
      "start-position timestamp: epoch milliseconds or an ISO-8601 instant (2026-12-04T02:30:00Z).")
      .withRule(v -> v.isEmpty() || epochMillis(v) >= 0, "empty, epoch milliseconds or an ISO-8601 instant such as 2026-12-04T02:30:00Z");

  public static final List<ConfigOption<?>> ALL = List.of(KafkaOptions.BOOTSTRAP, KafkaOptions.TOPIC, KafkaOptions.FORMAT, COLUMNS,
      KafkaOptions.AVRO_SCHEMA, KafkaOptions.REGISTRY, KafkaOptions.REGISTRY_AUTH, SPLITS, START_POSITION, START_TIMESTAMP, ON_ERROR, EVENT_TIME, WATERMARK_DELAY,
      DISCOVERY, KafkaOptions.REQUEST_TIMEOUT);

  /** Epoch milliseconds of {@code v} (digits or an ISO-8601 instant), or -1 if it is neither. */
  private static long epochMillis(String v) {
    if (v.matches("\\d{1,18}")) {
      return Long.parseLong(v);
    }
    try {
      long ms = Instant.parse(v).toEpochMilli();
      return ms >= 0 ? ms : -1;
    } catch (DateTimeParseException | ArithmeticException e) {
      return -1;
    }
  }

  /** Parses and checks {@code options}; IllegalArgumentException names the option, the value and the rule. */
  public static KafkaSourceOptions parse(Map<String, String> options) {
    Config c = Config.parse(KafkaOptions.declared(options), ALL);
    KafkaOptions.require(KafkaOptions.BOOTSTRAP.key(), c.get(KafkaOptions.BOOTSTRAP));
    KafkaOptions.require(KafkaOptions.TOPIC.key(), c.get(KafkaOptions.TOPIC));
    RowFormat.Kind format = RowFormat.Kind.valueOf(c.get(KafkaOptions.FORMAT).toUpperCase(Locale.ROOT));
    String inline = c.get(KafkaOptions.AVRO_SCHEMA);
    String registry = c.get(KafkaOptions.REGISTRY);
    KafkaOptions.checkRegistryAuth(registry, c.get(KafkaOptions.REGISTRY_AUTH));
    if (format != RowFormat.Kind.AVRO && (!inline.isEmpty() || !registry.isEmpty())) {
      throw new IllegalArgumentException("option '" + (inline.isEmpty() ? KafkaOptions.REGISTRY.key() : KafkaOptions.AVRO_SCHEMA.key())
          + "' is for format avro; this source has format " + format.name().toLowerCase(Locale.ROOT));
    }
    org.apache.avro.Schema avro = null;
    Schema columns;
    if (format == RowFormat.Kind.AVRO) {
      if (inline.isEmpty() == registry.isEmpty()) {
        throw new IllegalArgumentException("format avro takes exactly one of option '" + KafkaOptions.AVRO_SCHEMA.key()
            + "' (bare Avro values of that schema) and option '" + KafkaOptions.REGISTRY.key() + "' (Confluent wire format); "
            + (inline.isEmpty() ? "neither is" : "both are") + " set");
      }
      if (!inline.isEmpty()) {
        try {
          avro = AvroFormat.parse(inline);
          AvroFormat.columns(avro); // every field maps to a column type
        } catch (IllegalArgumentException e) {
          throw new IllegalArgumentException("option '" + KafkaOptions.AVRO_SCHEMA.key() + "': " + e.getMessage());
        }
      }
      if (c.get(COLUMNS) == null && avro == null) {
        throw new IllegalArgumentException("option 'columns' is required with option '" + KafkaOptions.REGISTRY.key()
            + "' (the writer schemas are known only when records arrive)");
      }
      columns = c.get(COLUMNS) == null ? AvroFormat.columns(avro) : columns(c.get(COLUMNS));
      if (avro != null && c.get(COLUMNS) != null) {
        try {
          AvroFormat.checkCovers(avro, columns, false);
        } catch (IllegalArgumentException e) {
          throw new IllegalArgumentException("options 'columns' and '" + KafkaOptions.AVRO_SCHEMA.key() + "' disagree: " + e.getMessage());
        }
      }
    } else if (format == RowFormat.Kind.JSON) {
      KafkaOptions.require(COLUMNS.key(), c.get(COLUMNS));
      columns = columns(c.get(COLUMNS));
    } else {
      if (c.get(COLUMNS) != null) {
        throw new IllegalArgumentException("option 'columns' is for format json or avro; format text has the one column 'value varchar'");
      }
      columns = Schema.of(new Field("value", DataType.VARCHAR));
    }
    for (Field f : columns.fields()) {
      if (f.name().equals("_partition") || f.name().equals("_offset")) {
        throw new IllegalArgumentException("option 'columns': '" + f.name() + "' is reserved (the source adds it)");
      }
    }
    String time = c.get(EVENT_TIME);
    if (!time.isEmpty()) {
      int i = columns.indexOf(time);
      if (i < 0 || columns.type(i) != DataType.TIMESTAMP) {
        throw new IllegalArgumentException("option '" + EVENT_TIME.key() + "' = '" + time + "' must name a timestamp column of " + columns.names());
      }
    }
    StartPosition start = StartPosition.valueOf(c.get(START_POSITION).toUpperCase(Locale.ROOT));
    String ts = c.get(START_TIMESTAMP);
    if ((start == StartPosition.TIMESTAMP) == ts.isEmpty()) {
      throw new IllegalArgumentException(start == StartPosition.TIMESTAMP
          ? "option 'start-position' = 'timestamp' needs option 'start-timestamp' (epoch milliseconds or an ISO-8601 instant)"
          : "option 'start-timestamp' = '" + ts + "' is for start-position timestamp; start-position is " + c.get(START_POSITION));
    }
    return new KafkaSourceOptions(c.get(KafkaOptions.BOOTSTRAP), c.get(KafkaOptions.TOPIC), format, columns, c.get(SPLITS),
        c.get(ON_ERROR).equals("skip"), time, c.get(WATERMARK_DELAY), c.get(DISCOVERY), c.get(KafkaOptions.REQUEST_TIMEOUT),
        KafkaOptions.passthrough(options), avro, registry, c.get(KafkaOptions.REGISTRY_AUTH), start, ts.isEmpty() ? -1 : epochMillis(ts));
  }

  private static Schema columns(String spec) {
    try {
      return RowFormat.parseColumns(spec);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("option 'columns' = '" + spec + "': " + e.getMessage());
    }
  }

  /** The source's output schema: the columns, then {@code _partition} and {@code _offset}. */
  public Schema schema() {
    List<Field> f = new ArrayList<>(columns.fields());
    f.add(new Field("_partition", DataType.INT));
    f.add(new Field("_offset", DataType.BIGINT));
    return new Schema(f);
  }
}
