package dev.tide.cluster;

import java.io.OutputStream;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.common.test.KafkaClusterTestKit;
import org.apache.kafka.common.test.TestKitNodes;

/**
 * A one-broker KRaft cluster in this JVM (Kafka's own {@code KafkaClusterTestKit}; internal topics
 * with replication factor 1, logs in a temporary directory), and small client helpers: for the
 * connector tests and {@code tide bench kafka}. Not for production data.
 */
public final class EmbeddedKafka implements AutoCloseable {
  private final KafkaClusterTestKit kit;

  public EmbeddedKafka() throws Exception {
    kit = new KafkaClusterTestKit.Builder(new TestKitNodes.Builder().setCombined(true).setNumBrokerNodes(1).setNumControllerNodes(1).build())
        .setConfigProp("offsets.topic.replication.factor", "1")
        .setConfigProp("transaction.state.log.replication.factor", "1")
        .setConfigProp("transaction.state.log.min.isr", "1")
        .setConfigProp("group.initial.rebalance.delay.ms", "0")
        .build();
    PrintStream out = System.out;
    System.setOut(new PrintStream(OutputStream.nullOutputStream())); // the kit's formatter prints its bootstrap records
    try {
      kit.format();
    } finally {
      System.setOut(out);
    }
    kit.startup();
    kit.waitForReadyBrokers();
  }

  public String bootstrap() {
    return kit.bootstrapServers();
  }

  public void createTopic(String name, int partitions) throws Exception {
    try (Admin admin = Admin.create(Map.of("bootstrap.servers", bootstrap()))) {
      admin.createTopics(List.of(new NewTopic(name, partitions, (short) 1))).all().get();
    }
  }

  public void addPartitions(String name, int total) throws Exception {
    try (Admin admin = Admin.create(Map.of("bootstrap.servers", bootstrap()))) {
      admin.createPartitions(Map.of(name, org.apache.kafka.clients.admin.NewPartitions.increaseTo(total))).all().get();
    }
  }

  /** Sends {@code values} (round robin over partitions when {@code partitions} > 0) and waits for them. */
  public void produce(String topic, List<String> values, int partitions) {
    Properties p = new Properties();
    p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap());
    try (KafkaProducer<String, String> producer = new KafkaProducer<>(p, new StringSerializer(), new StringSerializer())) {
      for (int i = 0; i < values.size(); i++) {
        producer.send(new ProducerRecord<>(topic, partitions > 0 ? i % partitions : null, null, values.get(i)));
      }
      producer.flush();
    }
  }

  /** Sends {@code records} (of byte values) and waits for them. */
  public void produceBytes(List<ProducerRecord<byte[], byte[]>> records) {
    Properties p = new Properties();
    p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap());
    p.put(ProducerConfig.LINGER_MS_CONFIG, 20);
    p.put(ProducerConfig.BATCH_SIZE_CONFIG, 256 * 1024);
    try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(p, new ByteArraySerializer(), new ByteArraySerializer())) {
      records.forEach(producer::send);
      producer.flush();
    }
  }

  /** Every committed record of {@code topic} up to its current end, read with isolation read_committed. */
  public List<ConsumerRecord<String, String>> readCommitted(String topic) {
    return readCommitted(topic, new StringDeserializer());
  }

  /** {@link #readCommitted(String)} with byte values (keys and values as they are in the log). */
  public List<ConsumerRecord<byte[], byte[]>> readCommittedBytes(String topic) {
    return readCommitted(topic, new ByteArrayDeserializer());
  }

  private <T> List<ConsumerRecord<T, T>> readCommitted(String topic, org.apache.kafka.common.serialization.Deserializer<T> d) {
    Properties p = new Properties();
    p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap());
    p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    try (KafkaConsumer<T, T> c = new KafkaConsumer<>(p, d, d)) {
      List<TopicPartition> tps = new ArrayList<>();
      c.partitionsFor(topic).forEach(i -> tps.add(new TopicPartition(topic, i.partition())));
      c.assign(tps);
      c.seekToBeginning(tps);
      Map<TopicPartition, Long> end = c.endOffsets(tps);
      List<ConsumerRecord<T, T>> out = new ArrayList<>();
      Map<TopicPartition, Long> done = new HashMap<>();
      while (done.size() < tps.size()) {
        for (ConsumerRecord<T, T> r : c.poll(java.time.Duration.ofMillis(200))) {
          out.add(r);
        }
        for (TopicPartition tp : tps) {
          if (c.position(tp) >= end.get(tp)) {
            done.put(tp, end.get(tp));
          }
        }
      }
      return out;
    }
  }

  /** Shuts the broker down (the controller stays), as a broker outage. */
  public void stopBroker() {
    kit.brokers().values().forEach(b -> {
      b.shutdown();
      b.awaitShutdown();
    });
  }

  /** Starts the broker again on its listener. */
  public void startBroker() throws Exception {
    for (var b : kit.brokers().values()) {
      b.startup();
    }
    kit.waitForReadyBrokers();
  }

  @Override
  public void close() throws Exception {
    kit.close();
  }
}
