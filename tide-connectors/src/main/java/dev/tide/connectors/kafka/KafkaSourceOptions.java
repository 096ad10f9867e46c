package dev.tide.connectors.kafka;

import dev.tide.common.config.Config;
import dev.tide.common.config.ConfigOption;
import dev.tide.common.types.DataType;
import dev.tide.common.types.Field;
import dev.tide.common.types.Schema;
import dev.tide.connectors.format.RowFormat;
import dev.tide.stream.connector.SourceConnector;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;

/**
 * Validated options of a Kafka source ({@link #parse}: options map in, typed value out). The
 * source's columns are {@code columns} (json) or {@code value varchar} (text), then
 * {@code _partition int} and {@code _offset bigint}, its stream key.
 */
public record KafkaSourceOptions(String bootstrap, String topic, RowFormat.Kind format, Schema columns, int splits,
    boolean skipErrors, String eventTimeColumn, Duration watermarkDelay, Duration discoveryInterval, Duration requestTimeout,
    Properties client) {

  public static final ConfigOption<String> COLUMNS = ConfigOption.stringOption("columns", null,
      "json: the columns, 'name type, name type, ...' (boolean, int, bigint, double, varchar, timestamp).");
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

  public static final List<ConfigOption<?>> ALL = List.of(KafkaOptions.BOOTSTRAP, KafkaOptions.TOPIC, KafkaOptions.FORMAT, COLUMNS,
      SPLITS, ON_ERROR, EVENT_TIME, WATERMARK_DELAY, DISCOVERY, KafkaOptions.REQUEST_TIMEOUT);

  /** Parses and checks {@code options}; IllegalArgumentException names the option, the value and the rule. */
  public static KafkaSourceOptions parse(Map<String, String> options) {
    Config c = Config.parse(KafkaOptions.declared(options), ALL);
    KafkaOptions.require(KafkaOptions.BOOTSTRAP.key(), c.get(KafkaOptions.BOOTSTRAP));
    KafkaOptions.require(KafkaOptions.TOPIC.key(), c.get(KafkaOptions.TOPIC));
    RowFormat.Kind format = RowFormat.Kind.valueOf(c.get(KafkaOptions.FORMAT).toUpperCase(java.util.Locale.ROOT));
    Schema columns;
    if (format == RowFormat.Kind.JSON) {
      KafkaOptions.require(COLUMNS.key(), c.get(COLUMNS));
      try {
        columns = RowFormat.parseColumns(c.get(COLUMNS));
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException("option 'columns' = '" + c.get(COLUMNS) + "': " + e.getMessage());
      }
    } else {
      if (c.get(COLUMNS) != null) {
        throw new IllegalArgumentException("option 'columns' is for format json; format text has the one column 'value varchar'");
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
    return new KafkaSourceOptions(c.get(KafkaOptions.BOOTSTRAP), c.get(KafkaOptions.TOPIC), format, columns, c.get(SPLITS),
        c.get(ON_ERROR).equals("skip"), time, c.get(WATERMARK_DELAY), c.get(DISCOVERY), c.get(KafkaOptions.REQUEST_TIMEOUT),
        KafkaOptions.passthrough(options));
  }

  /** The source's output schema: the columns, then {@code _partition} and {@code _offset}. */
  public Schema schema() {
    List<Field> f = new ArrayList<>(columns.fields());
    f.add(new Field("_partition", DataType.INT));
    f.add(new Field("_offset", DataType.BIGINT));
    return new Schema(f);
  }
}
