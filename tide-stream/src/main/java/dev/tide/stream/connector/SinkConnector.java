package dev.tide.stream.connector;

import dev.tide.common.types.Schema;
import dev.tide.proto.plan.SinkNode;
import dev.tide.stream.actor.Operator;
import dev.tide.stream.operator.ActorContext;
import java.util.Map;

/**
 * An external sink connector (Kafka, PostgreSQL, ...), found with {@link java.util.ServiceLoader}
 * by its {@link #name()}. {@link #validate} runs when a plan is built; {@link #create} per sink actor.
 *
 * <p>State: every connector sink gets one state table, rows {@code (actor BIGINT, epoch BIGINT,
 * seq INT, op INT, key VARCHAR, value VARCHAR)}, pk {@code (actor, epoch, seq)}, no distribution
 * key: the epochs it staged and has not yet published.
 */
public interface SinkConnector {
  String name();

  /**
   * Checks {@code options} against the sink's input: its visible {@code schema} and the columns of
   * its primary key ({@code key}). Throws IllegalArgumentException naming the option, the value and the rule.
   */
  void validate(Map<String, String> options, Schema schema, int[] key);

  /** The operator of one sink actor; {@code schema} and {@code key} as in {@link #validate}. */
  Operator create(SinkNode node, Schema schema, int[] key, ActorContext ctx);
}
