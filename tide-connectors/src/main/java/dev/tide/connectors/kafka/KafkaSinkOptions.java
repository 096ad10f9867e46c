package dev.tide.connectors.kafka;

import dev.tide.common.config.Config;
import dev.tide.common.config.ConfigOption;
import dev.tide.common.types.Schema;
import dev.tide.connectors.format.AvroFormat;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;

/**
 * Validated options of a Kafka sink ({@link #parse}: options map in, typed value out).
 *
 * @param avro format avro
 * @param avroSchema with {@code avro.schema}: the value schema written, else null (derived from the columns)
 * @param registryUrl with a registry: its base URL (values in the Confluent wire format), else empty
 * @param registryAuth {@code user:password} for the registry, or empty
 */
public record KafkaSinkOptions(String bootstrap, String topic, boolean upsert, Duration requestTimeout, Properties client,
    boolean avro, org.apache.avro.Schema avroSchema, String registryUrl, String registryAuth) {
  public static final ConfigOption<String> MODE = ConfigOption.stringOption("mode", "append-only",
      "append-only: each insert a record (a deletion fails the sink); upsert: keyed by the primary key, deletes as tombstones.")
      .withRule(v -> v.equals("append-only") || v.equals("upsert"), "append-only or upsert");

  public static final List<ConfigOption<?>> ALL = List.of(KafkaOptions.BOOTSTRAP, KafkaOptions.TOPIC, KafkaOptions.FORMAT,
      KafkaOptions.AVRO_SCHEMA, KafkaOptions.REGISTRY, KafkaOptions.REGISTRY_AUTH, MODE, KafkaOptions.REQUEST_TIMEOUT);

  public static KafkaSinkOptions parse(Map<String, String> options) {
    Config c = Config.parse(KafkaOptions.declared(options), ALL);
    KafkaOptions.require(KafkaOptions.BOOTSTRAP.key(), c.get(KafkaOptions.BOOTSTRAP));
    KafkaOptions.require(KafkaOptions.TOPIC.key(), c.get(KafkaOptions.TOPIC));
    String format = c.get(KafkaOptions.FORMAT);
    if (format.equals("text")) {
      throw new IllegalArgumentException("option 'format' = 'text': a Kafka sink writes json or avro");
    }
    boolean avro = format.equals("avro");
    String inline = c.get(KafkaOptions.AVRO_SCHEMA);
    String registry = c.get(KafkaOptions.REGISTRY);
    KafkaOptions.checkRegistryAuth(registry, c.get(KafkaOptions.REGISTRY_AUTH));
    if (!avro && (!inline.isEmpty() || !registry.isEmpty())) {
      throw new IllegalArgumentException("option '" + (inline.isEmpty() ? KafkaOptions.REGISTRY.key() : KafkaOptions.AVRO_SCHEMA.key())
          + "' is for format avro; this sink has format " + format);
    }
    org.apache.avro.Schema schema = null;
    if (!inline.isEmpty()) {
      try {
        schema = AvroFormat.parse(inline);
        AvroFormat.columns(schema);
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException("option '" + KafkaOptions.AVRO_SCHEMA.key() + "': " + e.getMessage());
      }
    }
    return new KafkaSinkOptions(c.get(KafkaOptions.BOOTSTRAP), c.get(KafkaOptions.TOPIC), c.get(MODE).equals("upsert"),
        c.get(KafkaOptions.REQUEST_TIMEOUT), KafkaOptions.passthrough(options), avro, schema, registry, c.get(KafkaOptions.REGISTRY_AUTH));
  }

  /**
   * Checks the options against the sink's input: an {@code avro.schema} must have a field per
   * column that the column's type writes into, and defaults for its other fields.
   */
  public void check(Schema columns) {
    if (avroSchema == null) {
      return;
    }
    try {
      AvroFormat.checkCovers(avroSchema, columns, true);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("option '" + KafkaOptions.AVRO_SCHEMA.key() + "' does not fit the sink's columns "
          + columns.names() + ": " + e.getMessage());
    }
    for (org.apache.avro.Schema.Field f : avroSchema.getFields()) {
      if (columns.indexOf(f.name()) < 0 && !f.hasDefaultValue()) {
        throw new IllegalArgumentException("option '" + KafkaOptions.AVRO_SCHEMA.key() + "': field '" + f.name()
            + "' is no column of the sink " + columns.names() + " and has no default");
      }
    }
  }

  /** The value schema written: {@code avro.schema}, or one derived from the columns. */
  org.apache.avro.Schema valueSchema(Schema columns, int[] all) {
    return avroSchema != null ? avroSchema : AvroFormat.recordFor(AvroFormat.avroName(topic), columns, all);
  }
}
