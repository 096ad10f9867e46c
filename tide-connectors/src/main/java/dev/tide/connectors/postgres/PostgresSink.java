package dev.tide.connectors.postgres;

import dev.tide.common.types.Schema;
import dev.tide.connectors.sink.StagedSinkOp;
import dev.tide.proto.plan.SinkNode;
import dev.tide.stream.actor.Operator;
import dev.tide.stream.connector.SinkConnector;
import dev.tide.stream.operator.ActorContext;
import java.util.Map;

/** The {@code postgres} sink connector: upserts and deletes by the stream key, exactly once per epoch. */
public final class PostgresSink implements SinkConnector {
  @Override
  public String name() {
    return "postgres";
  }

  @Override
  public void validate(Map<String, String> options, Schema schema, int[] key) {
    PostgresSinkOptions.parse(options);
    if (key.length == 0) {
      throw new IllegalArgumentException("the stream has no key; a postgres sink upserts by it");
    }
  }

  @Override
  public Operator create(SinkNode node, Schema schema, int[] key, ActorContext ctx) {
    PostgresSinkOptions o = PostgresSinkOptions.parse(node.getOptionsMap());
    return new StagedSinkOp(schema, key, node.getStateTableId(), ctx,
        actor -> new PostgresPublisher(o, schema, key, StagedSinkOp.identity(ctx.jobId(), node.getStateTableId(), actor)));
  }
}
