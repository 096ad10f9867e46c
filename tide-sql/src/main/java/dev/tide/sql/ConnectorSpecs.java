package dev.tide.sql;

import dev.tide.common.types.DataType;
import dev.tide.stream.connector.SourceConnector;
import dev.tide.stream.plan.PlanException;
import dev.tide.stream.plan.SourceCatalog;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.StringJoiner;
import java.util.TreeMap;

/**
 * Maps the {@code WITH (...)} options of {@code CREATE SOURCE} and {@code CREATE SINK} for an
 * external connector (Kafka, PostgreSQL: found by name through {@code ServiceLoader}) onto the
 * options of its plan node, which the connector itself then validates: SQL adds only spellings.
 *
 * <ul>
 *   <li>{@code properties.bootstrap.server} and {@code properties.bootstrap.servers} (RisingWave's
 *       spellings) are the connector's {@code bootstrap.servers}; other {@code properties.*} keys pass
 *       to the Kafka client as they are.
 *   <li>{@code scan.startup.mode} ({@code earliest}, {@code latest}) and
 *       {@code scan.startup.timestamp.millis} (RisingWave's) are {@code start-position} and
 *       {@code start-timestamp} (with {@code start-position = timestamp}).
 *   <li>A source's declared columns become its {@code columns} option ({@code name type, ...});
 *       {@code WATERMARK FOR c AS c - INTERVAL ...} becomes {@code event-time-column} and
 *       {@code watermark-delay}.
 *   <li>Every other key is the connector's own option name ({@code topic}, {@code format},
 *       {@code start-position}, {@code on-error}, {@code avro.schema-registry.url}, {@code mode},
 *       {@code url}, {@code table}, ...; see docs/connectors.md).
 * </ul>
 * Errors are {@link SqlException}s naming the statement and the connector's refusal (option, value, rule).
 */
final class ConnectorSpecs {
  private ConnectorSpecs() {}

  /** A declared column: its name, its type as written, and where in the statement. */
  record Declared(String name, String type, int position) {}

  /** The connector options of source {@code name} of {@code connector} (not nexmark). */
  static Map<String, String> sourceOptions(String name, String connector, Map<String, String> with, List<Declared> columns,
      String watermarkColumn, long watermarkDelayMs) {
    Map<String, String> options = common(with);
    String mode = options.remove("scan.startup.mode");
    if (mode != null) {
      options.put("start-position", mode);
    }
    String millis = options.remove("scan.startup.timestamp.millis");
    if (millis != null) {
      options.put("start-timestamp", millis);
      options.putIfAbsent("start-position", "timestamp");
    }
    if (!columns.isEmpty()) {
      if (options.containsKey("columns")) {
        throw new SqlException(SqlException.SYNTAX, "create source '" + name + "' refused: columns are declared twice, in the column list"
            + " and in WITH (columns = ...); keep the column list");
      }
      StringJoiner spec = new StringJoiner(", ");
      for (Declared c : columns) {
        DataType t = SqlEngine.typeNamed(c.type());
        if (t == null) {
          throw new SqlException(SqlException.DATATYPE_MISMATCH, "create source '" + name + "' refused: column '" + c.name()
              + "' has type '" + c.type() + "'; a " + connector + " source takes boolean, int, bigint, double precision, varchar, timestamp",
              c.position());
        }
        spec.add(c.name() + " " + t.sqlName());
      }
      options.put("columns", spec.toString());
    }
    if (watermarkColumn != null) {
      options.put(SourceConnector.EVENT_TIME_COLUMN, watermarkColumn);
      options.put("watermark-delay", watermarkDelayMs + "ms");
    }
    return options;
  }

  /** What the connector says source {@code name} with {@code options} is: its columns (declared, then the connector's own) and key. */
  static SourceCatalog.SourceInfo describeSource(String name, String connector, Map<String, String> options, boolean declared) {
    try {
      return SourceCatalog.describe(connector, name, options);
    } catch (PlanException e) {
      String hint = !declared && e.getMessage().contains("'columns' is required") ? "; declare them: CREATE SOURCE " + name
          + " (name type, ...) WITH (...)" : "";
      throw new SqlException(SqlException.INVALID_PARAMETER, "create source '" + name + "' refused: " + e.getMessage() + hint);
    }
  }

  /** The connector options of a sink (checked by the connector when the sink's plan is built). */
  static Map<String, String> sinkOptions(Map<String, String> with) {
    return common(with);
  }

  private static Map<String, String> common(Map<String, String> with) {
    Map<String, String> options = new TreeMap<>();
    with.forEach((k, v) -> {
      String key = k.toLowerCase(Locale.ROOT);
      options.put(key.equals("properties.bootstrap.server") || key.equals("properties.bootstrap.servers") ? "bootstrap.servers" : key, v);
    });
    return options;
  }
}
