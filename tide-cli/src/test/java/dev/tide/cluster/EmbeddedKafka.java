package dev.tide.cluster;

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
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.common.test.KafkaClusterTestKit;
import org.apache.kafka.common.test.TestKitNodes;

/** A one-broker KRaft cluster for tests (internal topics with replication factor 1), and small client helpers. */
final class EmbeddedKafka implements AutoCloseable {
  private final KafkaClusterTestKit kit;

  EmbeddedKafka() throws Exception {
    kit = new KafkaClusterTestKit.Builder(new TestKitNodes.Builder().setCombined(true).setNumBrokerNodes(1).setNumControllerNodes(1).build())
        .setConfigProp("offsets.topic.replication.factor", "1")
        .setConfigProp("transaction.state.log.replication.factor", "1")
        .setConfigProp("transaction.state.log.min.isr", "1")
        .setConfigProp("group.initial.rebalance.delay.ms", "0")
        .build();
    kit.format();
    kit.startup();
    kit.waitForReadyBrokers();
  }

  String bootstrap() {
    return kit.bootstrapServers();
  }

  void createTopic(String name, int partitions) throws Exception {
    try (Admin admin = Admin.create(Map.of("bootstrap.servers", bootstrap()))) {
      admin.createTopics(List.of(new NewTopic(name, partitions, (short) 1))).all().get();
    }
  }

  void addPartitions(String name, int total) throws Exception {
    try (Admin admin = Admin.create(Map.of("bootstrap.servers", bootstrap()))) {
      admin.createPartitions(Map.of(name, org.apache.kafka.clients.admin.NewPartitions.increaseTo(total))).all().get();
    }
  }

  /** Sends {@code values} (round robin over partitions when {@code partitions} > 0) and waits for them. */
  void produce(String topic, List<String> values, int partitions) {
    Properties p = new Properties();
    p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap());
    try (KafkaProducer<String, String> producer = new KafkaProducer<>(p, new StringSerializer(), new StringSerializer())) {
      for (int i = 0; i < values.size(); i++) {
        producer.send(new ProducerRecord<>(topic, partitions > 0 ? i % partitions : null, null, values.get(i)));
      }
      producer.flush();
    }
  }

  /** Every committed record of {@code topic} up to its current end, read with isolation read_committed. */
  List<ConsumerRecord<String, String>> readCommitted(String topic) {
    Properties p = new Properties();
    p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap());
    p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    try (KafkaConsumer<String, String> c = new KafkaConsumer<>(p, new StringDeserializer(), new StringDeserializer())) {
      List<TopicPartition> tps = new ArrayList<>();
      c.partitionsFor(topic).forEach(i -> tps.add(new TopicPartition(topic, i.partition())));
      c.assign(tps);
      c.seekToBeginning(tps);
      Map<TopicPartition, Long> end = c.endOffsets(tps);
      List<ConsumerRecord<String, String>> out = new ArrayList<>();
      Map<TopicPartition, Long> done = new HashMap<>();
      while (done.size() < tps.size()) {
        for (ConsumerRecord<String, String> r : c.poll(java.time.Duration.ofMillis(200))) {
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
  void stopBroker() {
    kit.brokers().values().forEach(b -> {
      b.shutdown();
      b.awaitShutdown();
    });
  }

  /** Starts the broker again on its listener. */
  void startBroker() throws Exception {
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
