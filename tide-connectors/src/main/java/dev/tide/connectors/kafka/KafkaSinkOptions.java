package dev.tide.connectors.kafka;

import dev.tide.common.config.Config;
import dev.tide.common.config.ConfigOption;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;

/** Validated options of a Kafka sink ({@link #parse}: options map in, typed value out). */
public record KafkaSinkOptions(String bootstrap, String topic, boolean upsert, Duration requestTimeout, Properties client) {
  public static final ConfigOption<String> MODE = ConfigOption.stringOption("mode", "append-only",
      "append-only: each insert a record (a deletion fails the sink); upsert: keyed by the primary key, deletes as tombstones.")
      .withRule(v -> v.equals("append-only") || v.equals("upsert"), "append-only or upsert");

  public static final List<ConfigOption<?>> ALL = List.of(KafkaOptions.BOOTSTRAP, KafkaOptions.TOPIC, KafkaOptions.FORMAT, MODE,
      KafkaOptions.REQUEST_TIMEOUT);

  public static KafkaSinkOptions parse(Map<String, String> options) {
    Config c = Config.parse(KafkaOptions.declared(options), ALL);
    KafkaOptions.require(KafkaOptions.BOOTSTRAP.key(), c.get(KafkaOptions.BOOTSTRAP));
    KafkaOptions.require(KafkaOptions.TOPIC.key(), c.get(KafkaOptions.TOPIC));
    if (!c.get(KafkaOptions.FORMAT).equals("json")) {
      throw new IllegalArgumentException("option 'format' = '" + c.get(KafkaOptions.FORMAT) + "': a Kafka sink writes json only");
    }
    return new KafkaSinkOptions(c.get(KafkaOptions.BOOTSTRAP), c.get(KafkaOptions.TOPIC), c.get(MODE).equals("upsert"),
        c.get(KafkaOptions.REQUEST_TIMEOUT), KafkaOptions.passthrough(options));
  }
}
