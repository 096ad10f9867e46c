package dev.tide.connectors.kafka;

import dev.tide.common.chunk.Op;
import dev.tide.common.types.Schema;
import dev.tide.connectors.format.AvroFormat;
import dev.tide.connectors.format.RowFormat;
import dev.tide.connectors.format.SchemaRegistry;
import dev.tide.connectors.sink.Publisher;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerGroupMetadata;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * Publishes a sink actor's epochs to a topic in Kafka transactions. The transactional id
 * {@code tide-<job>-<table>-<actor>} is stable across recoveries (actors keep their ids), so
 * {@code initTransactions} fences a crashed predecessor and aborts its open transaction. Each
 * transaction also commits, for a consumer group of the same name, offset {@code upToEpoch} on the
 * topic's partition 0: the record of the last epoch published, atomic with the rows.
 *
 * <p>Format avro: values are records of the sink's value schema and upsert keys records of the key
 * columns ({@code <topic>_key}, fields nullable); with a schema registry both are registered at
 * {@link #recover} (subjects {@code <topic>-value}, {@code <topic>-key}) and written in the
 * Confluent wire format.
 */
final class KafkaPublisher implements Publisher {
  private final KafkaSinkOptions options;
  private final String transactionalId;
  private final TopicPartition marker;
  private final Schema schema;
  private final int[] key;
  private final int[] all;
  private KafkaProducer<byte[], byte[]> producer;
  /** Format avro: the value and key writers, made at {@link #recover}; else null. */
  private AvroFormat.Writer valueWriter;
  private AvroFormat.Writer keyWriter;

  KafkaPublisher(KafkaSinkOptions options, String transactionalId, Schema schema, int[] key) {
    this.options = options;
    this.transactionalId = transactionalId;
    this.marker = new TopicPartition(options.topic(), 0);
    this.schema = schema;
    this.key = key;
    this.all = java.util.stream.IntStream.range(0, schema.size()).toArray();
  }

  private void avroWriters() {
    org.apache.avro.Schema value = options.valueSchema(schema, all);
    org.apache.avro.Schema keys = AvroFormat.recordFor(AvroFormat.avroName(options.topic()) + "_key", schema, key);
    int valueId = -1;
    int keyId = -1;
    if (!options.registryUrl().isEmpty()) {
      SchemaRegistry registry = new SchemaRegistry(options.registryUrl(), options.registryAuth(), options.requestTimeout());
      valueId = registry.register(options.topic() + "-value", value);
      keyId = options.upsert() ? registry.register(options.topic() + "-key", keys) : -1;
    }
    valueWriter = new AvroFormat.Writer(value, schema, all, valueId);
    keyWriter = options.upsert() ? new AvroFormat.Writer(keys, schema, key, keyId) : null;
  }

  @Override
  public long recover() {
    if (options.avro()) {
      avroWriters();
    }
    Properties p = new Properties();
    p.putAll(options.client());
    p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, options.bootstrap());
    p.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, transactionalId);
    p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
    p.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, (int) options.requestTimeout().toMillis());
    p.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, (int) options.requestTimeout().toMillis() + 5_000);
    p.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, (int) options.requestTimeout().toMillis());
    p.put(ProducerConfig.LINGER_MS_CONFIG, 5);
    producer = new KafkaProducer<>(p, new ByteArraySerializer(), new ByteArraySerializer());
    initTransactions();
    Properties c = new Properties();
    c.putAll(options.client());
    c.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, options.bootstrap());
    c.put(ConsumerConfig.GROUP_ID_CONFIG, transactionalId);
    c.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
    // read_committed fetches offsets with require_stable: a marker pending in an unfinished transaction is waited for, not skipped
    c.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    c.put(ConsumerConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, (int) options.requestTimeout().toMillis());
    try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(c, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
      OffsetAndMetadata m = consumer.committed(Set.of(marker)).get(marker);
      return m == null ? -1 : m.offset();
    } catch (KafkaException e) {
      throw failure("reading the published epoch", e);
    }
  }

  /**
   * Fences the predecessor and aborts its open transaction. A timeout is retried on the same producer
   * (its pending request stays valid, as the producer's contract allows) up to {@link #INIT_ATTEMPTS}
   * times: a broker that has just come back loads its transaction state first, and a new producer
   * per attempt would start over each time.
   */
  private void initTransactions() {
    for (int attempt = 1; ; attempt++) {
      try {
        producer.initTransactions();
        return;
      } catch (org.apache.kafka.common.errors.TimeoutException e) {
        if (attempt == INIT_ATTEMPTS) {
          throw failure("initialising transactions (" + attempt + " attempts of " + options.requestTimeout().toMillis() + " ms)", e);
        }
      } catch (KafkaException e) {
        throw failure("initialising transactions", e);
      }
    }
  }

  static final int INIT_ATTEMPTS = 5;

  @Override
  public void publish(List<StagedRow> rows, long upToEpoch) {
    try {
      producer.beginTransaction();
      for (StagedRow r : rows) {
        ProducerRecord<byte[], byte[]> rec = record(r);
        if (rec != null) {
          producer.send(rec);
        }
      }
      producer.sendOffsetsToTransaction(Map.of(marker, new OffsetAndMetadata(upToEpoch)), new ConsumerGroupMetadata(transactionalId));
      producer.commitTransaction();
    } catch (KafkaException e) {
      throw failure("publishing up to epoch " + upToEpoch, e);
    }
  }

  private byte[] value(String json) {
    return valueWriter == null ? json.getBytes(StandardCharsets.UTF_8) : valueWriter.encode(RowFormat.decodeJsonColumns(json, schema, all));
  }

  private ProducerRecord<byte[], byte[]> record(StagedRow r) {
    if (!options.upsert()) {
      if (!Op.isInsert(r.op())) {
        throw new IllegalStateException("kafka sink to topic '" + options.topic() + "' in mode append-only got a deletion of " + r.key()
            + ": its input is not append-only; use mode=upsert");
      }
      return new ProducerRecord<>(options.topic(), null, value(r.value()));
    }
    if (r.op() == Op.UPDATE_DELETE.code()) {
      return null; // the update's insert half, which follows, overwrites the key
    }
    byte[] key = keyWriter == null ? r.key().getBytes(StandardCharsets.UTF_8)
        : keyWriter.encode(RowFormat.decodeJsonColumns(r.key(), schema, this.key));
    byte[] value = Op.isInsert(r.op()) ? value(r.value()) : null;
    return new ProducerRecord<>(options.topic(), key, value);
  }

  private IllegalStateException failure(String what, KafkaException e) {
    return new IllegalStateException("kafka sink (transactional id " + transactionalId + ", topic '" + options.topic() + "', brokers "
        + options.bootstrap() + "): " + what + " failed: " + e + "; the job recovers and retries", e);
  }

  @Override
  public void close() {
    if (producer != null) {
      producer.close(java.time.Duration.ZERO);
    }
  }
}
