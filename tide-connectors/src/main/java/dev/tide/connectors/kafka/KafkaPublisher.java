package dev.tide.connectors.kafka;

import dev.tide.common.chunk.Op;
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
 */
final class KafkaPublisher implements Publisher {
  private final KafkaSinkOptions options;
  private final String transactionalId;
  private final TopicPartition marker;
  private KafkaProducer<byte[], byte[]> producer;

  KafkaPublisher(KafkaSinkOptions options, String transactionalId) {
    this.options = options;
    this.transactionalId = transactionalId;
    this.marker = new TopicPartition(options.topic(), 0);
  }

  @Override
  public long recover() {
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
    try {
      producer.initTransactions();
    } catch (KafkaException e) {
      throw failure("initialising transactions", e);
    }
    Properties c = new Properties();
    c.putAll(options.client());
    c.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, options.bootstrap());
    c.put(ConsumerConfig.GROUP_ID_CONFIG, transactionalId);
    c.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
    c.put(ConsumerConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, (int) options.requestTimeout().toMillis());
    try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(c, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
      OffsetAndMetadata m = consumer.committed(Set.of(marker)).get(marker);
      return m == null ? -1 : m.offset();
    } catch (KafkaException e) {
      throw failure("reading the published epoch", e);
    }
  }

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

  private ProducerRecord<byte[], byte[]> record(StagedRow r) {
    byte[] key = r.key().getBytes(StandardCharsets.UTF_8);
    if (!options.upsert()) {
      if (!Op.isInsert(r.op())) {
        throw new IllegalStateException("kafka sink to topic '" + options.topic() + "' in mode append-only got a deletion of " + r.key()
            + ": its input is not append-only; use mode=upsert");
      }
      return new ProducerRecord<>(options.topic(), null, r.value().getBytes(StandardCharsets.UTF_8));
    }
    if (r.op() == Op.UPDATE_DELETE.code()) {
      return null; // the update's insert half, which follows, overwrites the key
    }
    byte[] value = Op.isInsert(r.op()) ? r.value().getBytes(StandardCharsets.UTF_8) : null;
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
