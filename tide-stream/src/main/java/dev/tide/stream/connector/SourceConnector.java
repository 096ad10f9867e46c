package dev.tide.stream.connector;

import dev.tide.proto.plan.SourceNode;
import dev.tide.stream.actor.SourceOperator;
import dev.tide.stream.operator.ActorContext;
import dev.tide.stream.plan.SourceCatalog;
import java.util.Map;

/**
 * An external source connector (Kafka, ...), found with {@link java.util.ServiceLoader} by its
 * {@link #name()} (the plan's {@code connector}). The planner calls {@link #describe} and
 * {@link #splitCount} when a plan is built, so bad options are refused before anything runs;
 * compute nodes call {@link #create} per source actor.
 *
 * <p>Offsets: the source's state table holds rows {@code (split INT, offset BIGINT)} with an empty
 * distribution key (any actor may read any row); a connector keys them as it likes (Kafka: by partition).
 */
public interface SourceConnector {
  /** The option the planner reads for a source's event-time column (watermarks); connector-neutral. */
  String EVENT_TIME_COLUMN = "event-time-column";

  String name();

  /** The schema and stream key of {@code table} with {@code options}; throws IllegalArgumentException naming the bad option. */
  SourceCatalog.SourceInfo describe(String table, Map<String, String> options);

  /** The number of splits the source's actors share (fixed when the plan is built). */
  int splitCount(Map<String, String> options);

  SourceOperator create(SourceNode node, ActorContext ctx);
}
