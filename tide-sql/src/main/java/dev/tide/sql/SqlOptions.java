package dev.tide.sql;

import dev.tide.common.config.ConfigOption;
import java.util.List;

/** Options of the SQL server that meta and the playground run. */
public final class SqlOptions {
  public static final ConfigOption<Integer> PORT = ConfigOption.intOption("sql.port", 4566,
      "Port of the SQL server (PostgreSQL wire protocol) on meta's host; 0 picks a free one, -1 turns it off.")
      .withRule(p -> p >= -1 && p <= 65535, "-1 (off), 0 (any free port) or a port up to 65535");

  public static final List<ConfigOption<?>> ALL = List.of(PORT);

  private SqlOptions() {}
}
