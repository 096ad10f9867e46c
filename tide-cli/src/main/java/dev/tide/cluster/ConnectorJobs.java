package dev.tide.cluster;

import dev.tide.proto.plan.Plan;
import dev.tide.stream.plan.Agg;
import dev.tide.stream.plan.PlanBuilder;
import dev.tide.stream.plan.PlanException;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Built-in jobs over the Kafka connectors, for {@code tide ctl job create}:
 * {@code kafka-bids} reads Nexmark-style bids (JSON objects with {@code auction}, {@code bidder},
 * {@code price}, {@code date_time} in epoch ms) from a topic and keeps per auction the bid count
 * and the top price in the view {@code kafka_bids}, and, given sink options, writes the counts to a
 * sink too (option {@code connector} = kafka or postgres, the others are the connector's).
 */
final class ConnectorJobs {
  static final String KAFKA_BIDS = "kafka-bids";
  static final String BID_COLUMNS = "auction bigint, bidder bigint, price bigint, date_time timestamp";

  private ConnectorJobs() {}

  static boolean handles(String query) {
    return query.equals(KAFKA_BIDS);
  }

  /** The job's plan; {@code source} holds the Kafka source options (bootstrap.servers, topic, ...). */
  static Plan plan(String query, Map<String, String> source, Map<String, String> sink) {
    Map<String, String> s = new TreeMap<>(source);
    s.putIfAbsent("columns", BID_COLUMNS);
    s.putIfAbsent("event-time-column", "date_time");
    PlanBuilder b = new PlanBuilder("kafka_bids");
    PlanBuilder.Stream counts = b.source("kafka", s.getOrDefault("topic", "bids"), s)
        .groupBy("auction").agg(Agg.count("bids"), Agg.max("price", "top"));
    counts.materialize("kafka_bids");
    if (!sink.isEmpty()) {
      Map<String, String> k = new TreeMap<>(sink);
      String connector = k.remove("connector");
      if (connector == null) {
        throw new PlanException("sink options need connector=kafka or connector=postgres; got keys " + List.copyOf(sink.keySet()));
      }
      counts.sink(connector, k);
    }
    return b.build();
  }
}
