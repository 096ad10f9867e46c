package dev.tide.connectors.kafka;

import dev.tide.common.config.ConfigOption;
import java.time.Duration;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;

/**
 * Options the Kafka source and sink share. Keys starting with {@value #PASSTHROUGH} go to the Kafka
 * client without the prefix (security settings: {@code properties.security.protocol=SASL_SSL},
 * {@code properties.sasl.jaas.config=...}); the connector's own client settings cannot be overridden
 * that way.
 */
public final class KafkaOptions {
  public static final String PASSTHROUGH = "properties.";

  public static final ConfigOption<String> BOOTSTRAP = ConfigOption.stringOption("bootstrap.servers", null,
      "Kafka brokers to bootstrap from, host:port[,host:port...]. Required.")
      .withRule(v -> v == null || v.matches("[^,\\s:]+:\\d{1,5}(,[^,\\s:]+:\\d{1,5})*"), "a list host:port[,host:port...]");
  public static final ConfigOption<String> TOPIC = ConfigOption.stringOption("topic", null, "The topic. Required.")
      .withRule(v -> v == null || v.matches("[A-Za-z0-9._-]{1,249}"), "a Kafka topic name ([A-Za-z0-9._-], at most 249 characters)");
  public static final ConfigOption<String> FORMAT = ConfigOption.stringOption("format", "json",
      "Record encoding: json (an object per record, a field per column), avro (a record per value, a field per column) or text (source only: the value as one varchar column).")
      .withRule(v -> v.equals("json") || v.equals("text") || v.equals("avro"), "json, avro or text");
  public static final ConfigOption<String> AVRO_SCHEMA = ConfigOption.stringOption("avro.schema", "",
      "format avro: the record schema as Avro JSON. Source: the writer schema of bare Avro values (give it or avro.schema-registry.url); sink: the schema written (default: derived from the columns, every field nullable).");
  public static final ConfigOption<String> REGISTRY = ConfigOption.stringOption("avro.schema-registry.url", "",
      "format avro: base URL of a Confluent-compatible schema registry; values are in its wire format (byte 0, 4-byte schema id, Avro). Source: writer schemas fetched by id and cached; sink: its schema registered under subject {topic}-value ({topic}-key for upsert keys).")
      .withRule(v -> v.isEmpty() || v.matches("https?://[^\\s/]+(/\\S*)?"), "empty or an http:// or https:// URL");
  public static final ConfigOption<String> REGISTRY_AUTH = ConfigOption.stringOption("avro.schema-registry.basic-auth", "",
      "format avro with a registry: user:password sent as HTTP basic authentication (Confluent's basic.auth.user.info).")
      .withRule(v -> v.isEmpty() || v.indexOf(':') > 0, "empty or user:password");
  public static final ConfigOption<Duration> REQUEST_TIMEOUT = ConfigOption.durationOption("request-timeout", Duration.ofSeconds(30),
      "How long a client call may wait for the brokers before the actor fails (and the job recovers).")
      .withRule(d -> !d.isNegative() && !d.isZero(), "a positive duration");

  private KafkaOptions() {}

  /** Refuses registry credentials without a registry. */
  static void checkRegistryAuth(String registry, String auth) {
    if (!auth.isEmpty() && registry.isEmpty()) {
      throw new IllegalArgumentException("option '" + REGISTRY_AUTH.key() + "' needs option '" + REGISTRY.key() + "'");
    }
  }

  static void require(String key, String value) {
    if (value == null || value.isBlank()) {
      throw new IllegalArgumentException("option '" + key + "' is required");
    }
  }

  /** The pass-through client properties of {@code options} (prefix removed). */
  static Properties passthrough(Map<String, String> options) {
    Properties p = new Properties();
    new TreeMap<>(options).forEach((k, v) -> {
      if (k.startsWith(PASSTHROUGH)) {
        p.put(k.substring(PASSTHROUGH.length()), v);
      }
    });
    return p;
  }

  /** Options with the pass-through ones removed: those {@link dev.tide.common.config.Config#parse} checks. */
  static Map<String, String> declared(Map<String, String> options) {
    Map<String, String> m = new TreeMap<>(options);
    m.keySet().removeIf(k -> k.startsWith(PASSTHROUGH));
    return m;
  }
}
