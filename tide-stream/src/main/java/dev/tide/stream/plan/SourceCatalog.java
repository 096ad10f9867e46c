package dev.tide.stream.plan;

import dev.tide.common.types.Schema;
import dev.tide.stream.connector.Connectors;
import dev.tide.stream.connector.SourceConnector;
import dev.tide.stream.source.NexmarkSourceOptions;
import dev.tide.stream.nexmark.NexmarkTable;
import java.util.Arrays;
import java.util.Locale;
import java.util.Map;

/** Schemas, keys and option validation of the source connectors a plan may use. */
public final class SourceCatalog {
  private SourceCatalog() {}

  /** A source table's schema and the columns that identify its rows. */
  public record SourceInfo(Schema schema, int[] key) {}

  public static SourceInfo describe(String connector, String table, Map<String, String> options) {
    if (!connector.equals("nexmark")) {
      SourceConnector c = Connectors.source(connector);
      if (c == null) {
        throw new PlanException("unknown source connector '" + connector + "'; known connectors: " + Connectors.sourceNames());
      }
      try {
        return c.describe(table, options);
      } catch (IllegalArgumentException e) {
        throw new PlanException(connector + " source '" + table + "': " + e.getMessage());
      }
    }
    NexmarkTable t;
    try {
      t = NexmarkTable.valueOf(table.toUpperCase(Locale.ROOT));
    } catch (IllegalArgumentException e) {
      throw new PlanException("unknown nexmark table '" + table + "'; known tables: " + Arrays.toString(NexmarkTable.values()).toLowerCase(Locale.ROOT));
    }
    try {
      NexmarkSourceOptions.parse(options);
    } catch (IllegalArgumentException e) {
      throw new PlanException("nexmark source '" + table + "': " + e.getMessage());
    }
    Schema s = t.schema();
    String keyName = t == NexmarkTable.BID ? "_row_id" : "id";
    return new SourceInfo(s, new int[] {s.indexOf(keyName)});
  }
}
