package dev.tide.connectors.postgres;

import dev.tide.common.config.Config;
import dev.tide.common.config.ConfigOption;
import java.util.List;
import java.util.Map;

/** Validated options of a PostgreSQL sink ({@link #parse}: options map in, typed value out). */
public record PostgresSinkOptions(String url, String user, String password, String table, String progressTable) {
  public static final ConfigOption<String> URL = ConfigOption.stringOption("url", null,
      "JDBC URL of the target database, jdbc:postgresql://host:port/db. Required.")
      .withRule(v -> v == null || v.startsWith("jdbc:postgresql://"), "a jdbc:postgresql://host:port/database URL");
  public static final ConfigOption<String> USER = ConfigOption.stringOption("user", "", "Database user (empty: the driver's default).");
  public static final ConfigOption<String> PASSWORD = ConfigOption.stringOption("password", "", "Database password.");
  public static final ConfigOption<String> TABLE = ConfigOption.stringOption("table", null,
      "Target table, [schema.]name; it must exist with the sink's columns and a primary key on the stream's key. Required.")
      .withRule(v -> v == null || v.matches("([A-Za-z_][A-Za-z0-9_]*\\.)?[A-Za-z_][A-Za-z0-9_]*"), "an identifier [schema.]name");
  public static final ConfigOption<String> PROGRESS_TABLE = ConfigOption.stringOption("progress-table", "tide_sink_progress",
      "Table (created if missing) where each sink actor records the last epoch it wrote, in the same transaction as the rows.")
      .withRule(v -> v.matches("([A-Za-z_][A-Za-z0-9_]*\\.)?[A-Za-z_][A-Za-z0-9_]*"), "an identifier [schema.]name");

  public static final List<ConfigOption<?>> ALL = List.of(URL, USER, PASSWORD, TABLE, PROGRESS_TABLE);

  public static PostgresSinkOptions parse(Map<String, String> options) {
    Config c = Config.parse(options, ALL);
    if (c.get(URL) == null) {
      throw new IllegalArgumentException("option 'url' is required");
    }
    if (c.get(TABLE) == null) {
      throw new IllegalArgumentException("option 'table' is required");
    }
    return new PostgresSinkOptions(c.get(URL), c.get(USER), c.get(PASSWORD), c.get(TABLE), c.get(PROGRESS_TABLE));
  }
}
