package dev.tide.connectors.format;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tide.common.types.Schema;
import java.time.Duration;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/** Avro rows both ways, bare and in the Confluent wire format against a loopback registry. */
public class AvroFormatTest {
  public static final String BID = """
      {"type": "record", "name": "Bid", "fields": [
        {"name": "auction", "type": "long"},
        {"name": "bidder", "type": ["null", "int"], "default": null},
        {"name": "price", "type": "double"},
        {"name": "channel", "type": {"type": "enum", "name": "Channel", "symbols": ["web", "app"]}},
        {"name": "url", "type": ["null", "string"], "default": null},
        {"name": "date_time", "type": {"type": "long", "logicalType": "timestamp-millis"}}]}""";

  @Test
  void columnsOfARecordSchema() {
    Schema s = AvroFormat.columns(AvroFormat.parse(BID));
    assertThat(s.toString()).isEqualTo(RowFormat.parseColumns(
        "auction bigint, bidder int, price double, channel varchar, url varchar, date_time timestamp").toString());
    assertThatThrownBy(() -> AvroFormat.columns(AvroFormat.parse("{\"type\":\"record\",\"name\":\"R\",\"fields\":[{\"name\":\"b\",\"type\":\"bytes\"}]}")))
        .hasMessageContaining("field 'b'").hasMessageContaining("maps to no column type");
    assertThatThrownBy(() -> AvroFormat.parse("{\"type\":\"record\"")).hasMessageContaining("not an Avro schema");
  }

  @Test
  void bareRecordsRoundTripIncludingNullsAndTimestamps() {
    org.apache.avro.Schema avro = AvroFormat.parse(BID);
    Schema cols = AvroFormat.columns(avro);
    int[] all = {0, 1, 2, 3, 4, 5};
    Object[] row = {7L, null, 12.5, "app", "http://x", 1_700_000_000_123L};
    byte[] bytes = new AvroFormat.Writer(avro, cols, all, -1).encode(row);
    Object[] out = new Object[6];
    new AvroFormat.Reader(avro, cols).decode(bytes, 0, out);
    assertThat(out).containsExactly(row);
    assertThatThrownBy(() -> new AvroFormat.Reader(avro, cols).decode(new byte[] {1, 2}, 0, out))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("not an Avro record");
  }

  @Test
  void readsByFieldNameAcrossWriterSchemas() {
    // a writer schema with a field more, one fewer and an int where the column is a bigint
    org.apache.avro.Schema v2 = AvroFormat.parse("""
        {"type": "record", "name": "Bid", "fields": [
          {"name": "extra", "type": "string"}, {"name": "auction", "type": "int"}]}""");
    Schema cols = RowFormat.parseColumns("auction bigint, price double");
    byte[] bytes = new AvroFormat.Writer(v2, AvroFormat.columns(v2), new int[] {0, 1}, -1).encode(new Object[] {"e", 3});
    Object[] out = new Object[2];
    new AvroFormat.Reader(v2, cols).decode(bytes, 0, out);
    assertThat(out).containsExactly(3L, null);
    assertThatThrownBy(() -> new AvroFormat.Reader(v2, RowFormat.parseColumns("extra bigint")))
        .hasMessageContaining("field 'extra'").hasMessageContaining("does not read into column 'extra' bigint");
  }

  @Test
  void wireFormatThroughTheRegistryWithItsCache() throws Exception {
    try (LoopbackSchemaRegistry server = new LoopbackSchemaRegistry()) {
      Schema cols = RowFormat.parseColumns("auction bigint, price double, date_time timestamp");
      org.apache.avro.Schema derived = AvroFormat.recordFor("bids", cols, new int[] {0, 1, 2});
      SchemaRegistry producerSide = new SchemaRegistry(server.url(), Duration.ofSeconds(5));
      int id = producerSide.register("bids-value", derived);
      assertThat(producerSide.register("bids-value", derived)).isEqualTo(id);
      assertThat(server.versions("bids-value")).containsExactly(id);
      byte[] bytes = new AvroFormat.Writer(derived, cols, new int[] {0, 1, 2}, id).encode(new Object[] {5L, 2.0, 1_000L});
      assertThat(bytes[0]).isEqualTo((byte) 0);
      assertThat(AvroFormat.schemaId(bytes)).isEqualTo(id);

      SchemaRegistry consumerSide = new SchemaRegistry(server.url() + "/", Duration.ofSeconds(5));
      for (int i = 0; i < 3; i++) {
        Object[] out = new Object[3];
        new AvroFormat.Reader(consumerSide.schema(AvroFormat.schemaId(bytes)), cols).decode(bytes, 5, out);
        assertThat(out).containsExactly(5L, 2.0, 1_000L);
      }
      assertThat(server.fetches()).isEqualTo(1);
      for (int i = 0; i < 2; i++) {
        assertThatThrownBy(() -> consumerSide.schema(99)).isInstanceOf(SchemaRegistry.UnknownSchemaException.class)
            .hasMessageContaining("schema id 99 is not in the registry");
      }
      assertThat(server.fetches()).isEqualTo(2); // id 1 once, id 99 once
      assertThatThrownBy(() -> AvroFormat.schemaId("{\"a\":1}".getBytes())).hasMessageContaining("not in the Confluent wire format")
          .hasMessageContaining("first byte 123");
      server.close();
      assertThatThrownBy(() -> new SchemaRegistry(server.url(), Duration.ofSeconds(2)).schema(id))
          .isInstanceOf(IllegalStateException.class).hasMessageContaining("schema registry " + server.url()).hasMessageContaining("retries");
    }
  }

  @Test
  void aLengthBeyondTheValueIsMalformedNotAnAllocation() {
    org.apache.avro.Schema s = AvroFormat.parse("{\"type\":\"record\",\"name\":\"R\",\"fields\":[{\"name\":\"a\",\"type\":\"string\"}]}");
    // zig-zag varint of 1,000,000,000 as the string's length, then 3 bytes
    byte[] v = {(byte) 0x80, (byte) 0xa8, (byte) 0xd6, (byte) 0xb9, 0x07, 'a', 'b', 'c'};
    assertThatThrownBy(() -> new AvroFormat.Reader(s, AvroFormat.columns(s)).decode(v, 0, new Object[1]))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("not an Avro record");
  }

  @Test
  void basicAuthenticationIsSentAndARefusalNamesTheOption() throws Exception {
    try (LoopbackSchemaRegistry server = new LoopbackSchemaRegistry("tide:secret")) {
      int id = new SchemaRegistry(server.url(), "tide:secret", Duration.ofSeconds(5)).register("s-value",
          AvroFormat.parse(AvroFormatTest.BID));
      assertThat(new SchemaRegistry(server.url(), "tide:secret", Duration.ofSeconds(5)).schema(id).getName()).isEqualTo("Bid");
      assertThatThrownBy(() -> new SchemaRegistry(server.url(), "tide:wrong", Duration.ofSeconds(5)).schema(id))
          .isInstanceOf(IllegalStateException.class).hasMessageContaining("refused (401)").hasMessageContaining("avro.schema-registry.basic-auth");
    }
  }

  @Test
  void writerRefusesAValueItsSchemaCannotHold() {
    org.apache.avro.Schema strict = AvroFormat.parse("{\"type\":\"record\",\"name\":\"R\",\"fields\":[{\"name\":\"a\",\"type\":\"long\"}]}");
    Schema cols = RowFormat.parseColumns("a bigint");
    assertThatThrownBy(() -> new AvroFormat.Writer(strict, cols, new int[] {0}, -1).encode(new Object[] {null}))
        .hasMessageContaining("does not fit the Avro schema R");
    assertThat(Arrays.toString(new AvroFormat.Writer(strict, cols, new int[] {0}, -1).encode(new Object[] {1L}))).isEqualTo("[2]");
  }
}
