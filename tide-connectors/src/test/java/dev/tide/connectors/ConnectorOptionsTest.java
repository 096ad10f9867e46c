package dev.tide.connectors;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tide.common.config.ConfigOption;
import dev.tide.common.config.Durations;
import dev.tide.connectors.format.RowFormat;
import dev.tide.connectors.kafka.KafkaSinkOptions;
import dev.tide.connectors.kafka.KafkaSourceOptions;
import dev.tide.connectors.postgres.PostgresSinkOptions;
import dev.tide.common.types.Schema;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Options maps in, validated options out; refusals name option, value and rule; the docs tables match the declarations. */
class ConnectorOptionsTest {
  private static Map<String, String> source() {
    Map<String, String> o = new HashMap<>();
    o.put("bootstrap.servers", "localhost:9092");
    o.put("topic", "bids");
    o.put("columns", "auction bigint, price bigint, date_time timestamp");
    return o;
  }

  @Test
  void sourceOptionsParse() {
    Map<String, String> o = source();
    o.put("event-time-column", "date_time");
    o.put("watermark-delay", "2s");
    o.put("properties.security.protocol", "SASL_SSL");
    KafkaSourceOptions k = KafkaSourceOptions.parse(o);
    assertThat(k.schema().names()).containsExactly("auction", "price", "date_time", "_partition", "_offset");
    assertThat(k.watermarkDelay()).isEqualTo(Duration.ofSeconds(2));
    assertThat(k.client().getProperty("security.protocol")).isEqualTo("SASL_SSL");
    assertThat(k.splits()).isEqualTo(16);
  }

  @Test
  void refusalsNameOptionValueAndRule() {
    Map<String, String> o = source();
    o.put("splits", "0");
    assertThatThrownBy(() -> KafkaSourceOptions.parse(o)).hasMessageContaining("splits").hasMessageContaining("0")
        .hasMessageContaining("between 1 and 4096");
    Map<String, String> missing = source();
    missing.remove("topic");
    assertThatThrownBy(() -> KafkaSourceOptions.parse(missing)).hasMessageContaining("'topic' is required");
    Map<String, String> badType = source();
    badType.put("columns", "auction money");
    assertThatThrownBy(() -> KafkaSourceOptions.parse(badType)).hasMessageContaining("unknown type 'money'");
    Map<String, String> text = source();
    text.put("format", "text");
    assertThatThrownBy(() -> KafkaSourceOptions.parse(text)).hasMessageContaining("'columns' is for format json");
    assertThatThrownBy(() -> KafkaSinkOptions.parse(Map.of("bootstrap.servers", "a:1", "topic", "t", "mode", "merge")))
        .hasMessageContaining("mode").hasMessageContaining("merge").hasMessageContaining("append-only or upsert");
    assertThatThrownBy(() -> PostgresSinkOptions.parse(Map.of("url", "jdbc:postgresql://h/db", "table", "bad-name")))
        .hasMessageContaining("table").hasMessageContaining("bad-name").hasMessageContaining("identifier");
  }

  @Test
  void avroAndStartPositionOptions() {
    Map<String, String> inline = source();
    inline.remove("columns");
    inline.put("format", "avro");
    inline.put("avro.schema", dev.tide.connectors.format.AvroFormatTest.BID);
    KafkaSourceOptions k = KafkaSourceOptions.parse(inline);
    assertThat(k.columns().names()).containsExactly("auction", "bidder", "price", "channel", "url", "date_time");
    assertThat(k.startPosition()).isEqualTo(KafkaSourceOptions.StartPosition.EARLIEST);

    Map<String, String> neither = source();
    neither.put("format", "avro");
    assertThatThrownBy(() -> KafkaSourceOptions.parse(neither)).hasMessageContaining("exactly one of option 'avro.schema'")
        .hasMessageContaining("neither is set");
    Map<String, String> both = new HashMap<>(inline);
    both.put("avro.schema-registry.url", "http://localhost:8081");
    assertThatThrownBy(() -> KafkaSourceOptions.parse(both)).hasMessageContaining("both are set");
    Map<String, String> registryNoColumns = source();
    registryNoColumns.remove("columns");
    registryNoColumns.put("format", "avro");
    registryNoColumns.put("avro.schema-registry.url", "http://localhost:8081");
    assertThatThrownBy(() -> KafkaSourceOptions.parse(registryNoColumns)).hasMessageContaining("option 'columns' is required");
    Map<String, String> badUrl = new HashMap<>(registryNoColumns);
    badUrl.put("avro.schema-registry.url", "localhost:8081");
    assertThatThrownBy(() -> KafkaSourceOptions.parse(badUrl)).hasMessageContaining("avro.schema-registry.url")
        .hasMessageContaining("localhost:8081").hasMessageContaining("http:// or https:// URL");
    Map<String, String> disagree = new HashMap<>(inline);
    disagree.put("columns", "auction varchar");
    assertThatThrownBy(() -> KafkaSourceOptions.parse(disagree)).hasMessageContaining("disagree")
        .hasMessageContaining("Avro field 'auction' is a bigint, column 'auction' a varchar");
    Map<String, String> notRecord = new HashMap<>(inline);
    notRecord.put("avro.schema", "\"string\"");
    assertThatThrownBy(() -> KafkaSourceOptions.parse(notRecord)).hasMessageContaining("option 'avro.schema'").hasMessageContaining("not a record");
    Map<String, String> jsonWithSchema = source();
    jsonWithSchema.put("avro.schema", dev.tide.connectors.format.AvroFormatTest.BID);
    assertThatThrownBy(() -> KafkaSourceOptions.parse(jsonWithSchema)).hasMessageContaining("is for format avro");
    assertThatThrownBy(() -> KafkaSinkOptions.parse(Map.of("bootstrap.servers", "a:1", "topic", "t", "format", "avro",
        "avro.schema", "{\"type\":\"record\",\"name\":\"R\",\"fields\":[{\"name\":\"a\",\"type\":\"long\"}]}"))
        .check(RowFormat.parseColumns("a bigint, b varchar"))).hasMessageContaining("has no field 'b'");

    Map<String, String> authAlone = new HashMap<>(inline);
    authAlone.put("avro.schema-registry.basic-auth", "tide:secret");
    assertThatThrownBy(() -> KafkaSourceOptions.parse(authAlone)).hasMessageContaining("'avro.schema-registry.basic-auth' needs option 'avro.schema-registry.url'");
    Map<String, String> badAuth = new HashMap<>(registryNoColumns);
    badAuth.put("columns", "auction bigint");
    badAuth.put("avro.schema-registry.basic-auth", "nocolon");
    assertThatThrownBy(() -> KafkaSourceOptions.parse(badAuth)).hasMessageContaining("'nocolon'").hasMessageContaining("user:password");

    Map<String, String> ts = source();
    ts.put("start-position", "timestamp");
    assertThatThrownBy(() -> KafkaSourceOptions.parse(ts)).hasMessageContaining("needs option 'start-timestamp'");
    ts.put("start-timestamp", "2026-12-04T02:30:00Z");
    assertThat(KafkaSourceOptions.parse(ts).startTimestampMs()).isEqualTo(java.time.Instant.parse("2026-12-04T02:30:00Z").toEpochMilli());
    ts.put("start-timestamp", "yesterday");
    assertThatThrownBy(() -> KafkaSourceOptions.parse(ts)).hasMessageContaining("'yesterday'").hasMessageContaining("start-timestamp")
        .hasMessageContaining("ISO-8601 instant");
    Map<String, String> stray = source();
    stray.put("start-timestamp", "1000");
    assertThatThrownBy(() -> KafkaSourceOptions.parse(stray)).hasMessageContaining("is for start-position timestamp");
    Map<String, String> bad = source();
    bad.put("start-position", "newest");
    assertThatThrownBy(() -> KafkaSourceOptions.parse(bad)).hasMessageContaining("'newest'").hasMessageContaining("earliest, latest or timestamp");
  }

  @Test
  void jsonRoundTripsAndRefusesWrongTypes() {
    Schema s = RowFormat.parseColumns("a bigint, b varchar, c double, d boolean, t timestamp");
    Object[] row = {5L, "x\"y", 1.5, true, 1_700_000_000_000L};
    String json = RowFormat.encodeJson(row, s, new int[] {0, 1, 2, 3, 4});
    assertThat(RowFormat.decodeJsonColumns(json, s, new int[] {0, 1, 2, 3, 4})).containsExactly(row);
    Object[] out = new Object[5];
    assertThatThrownBy(() -> RowFormat.decodeJson("{\"a\":\"five\"}".getBytes(), s, out)).hasMessageContaining("field 'a'")
        .hasMessageContaining("not a bigint");
    RowFormat.decodeJson("{\"a\":1}".getBytes(), s, out);
    assertThat(out).containsExactly(1L, null, null, null, null);
  }

  /** The option tables of docs/connectors.md, rendered from the declarations. */
  @Test
  void docsTablesMatchTheDeclarations() throws IOException {
    String docs = Files.readString(Path.of("..", "docs", "connectors.md"));
    for (List<ConfigOption<?>> options : List.of(KafkaSourceOptions.ALL, KafkaSinkOptions.ALL, PostgresSinkOptions.ALL)) {
      for (ConfigOption<?> o : options) {
        assertThat(docs).as("docs/connectors.md row of option %s", o.key()).contains(row(o));
      }
    }
  }

  static String row(ConfigOption<?> o) {
    Object d = o.defaultValue();
    String def = d == null ? "required" : d instanceof Duration du ? Durations.format(du) : d.toString().isEmpty() ? "(none)" : d.toString();
    return "| `" + o.key() + "` | " + def + " | " + o.ruleText() + " | " + o.description() + " |";
  }

  /** Prints the tables (run by hand to refresh the docs). */
  public static void main(String[] args) {
    for (List<ConfigOption<?>> options : List.of(KafkaSourceOptions.ALL, KafkaSinkOptions.ALL, PostgresSinkOptions.ALL)) {
      System.out.println("| option | default | value | description |\n|---|---|---|---|");
      options.forEach(o -> System.out.println(row(o)));
      System.out.println();
    }
  }
}
