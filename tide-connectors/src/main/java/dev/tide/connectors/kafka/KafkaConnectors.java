package dev.tide.connectors.kafka;

import dev.tide.common.types.Schema;
import dev.tide.connectors.sink.StagedSinkOp;
import dev.tide.proto.plan.SinkNode;
import dev.tide.proto.plan.SourceNode;
import dev.tide.stream.actor.Operator;
import dev.tide.stream.actor.SourceOperator;
import dev.tide.stream.connector.SinkConnector;
import dev.tide.stream.connector.SourceConnector;
import dev.tide.stream.operator.ActorContext;
import dev.tide.stream.plan.SourceCatalog;
import java.util.Map;

/** The {@code kafka} source and sink connectors (registered in META-INF/services). */
public final class KafkaConnectors {
  private KafkaConnectors() {}

  public static final class Source implements SourceConnector {
    @Override
    public String name() {
      return "kafka";
    }

    @Override
    public SourceCatalog.SourceInfo describe(String table, Map<String, String> options) {
      KafkaSourceOptions o = KafkaSourceOptions.parse(options);
      Schema s = o.schema();
      return new SourceCatalog.SourceInfo(s, new int[] {s.size() - 2, s.size() - 1});
    }

    @Override
    public int splitCount(Map<String, String> options) {
      return KafkaSourceOptions.parse(options).splits();
    }

    @Override
    public SourceOperator create(SourceNode node, ActorContext ctx) {
      return new KafkaSourceOp(node, ctx);
    }
  }

  public static final class Sink implements SinkConnector {
    @Override
    public String name() {
      return "kafka";
    }

    @Override
    public void validate(Map<String, String> options, Schema schema, int[] key) {
      KafkaSinkOptions.parse(options).check(schema);
    }

    @Override
    public Operator create(SinkNode node, Schema schema, int[] key, ActorContext ctx) {
      KafkaSinkOptions o = KafkaSinkOptions.parse(node.getOptionsMap());
      return new StagedSinkOp(schema, key, node.getStateTableId(), ctx,
          actor -> new KafkaPublisher(o, StagedSinkOp.identity(ctx.jobId(), node.getStateTableId(), actor), schema, key));
    }
  }
}
