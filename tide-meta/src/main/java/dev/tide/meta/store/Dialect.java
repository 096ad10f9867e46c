package dev.tide.meta.store;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

/** What differs between the SQL databases a meta store can live in. */
enum Dialect {
  SQLITE("jdbc:sqlite:", "BLOB", "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY name"),
  POSTGRESQL("jdbc:postgresql:", "BYTEA",
      "SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema() ORDER BY table_name");

  static final String URL_FORMS = "'jdbc:sqlite:<file>' or 'jdbc:postgresql://<host>:<port>/<database>[?user=...]'";

  private final String prefix;
  private final String bytesType;
  private final String listTables;

  Dialect(String prefix, String bytesType, String listTables) {
    this.prefix = prefix;
    this.bytesType = bytesType;
    this.listTables = listTables;
  }

  static Dialect of(String url) {
    for (Dialect d : values()) {
      if (url.startsWith(d.prefix)) {
        return d;
      }
    }
    throw new IllegalArgumentException("meta store URL '" + url + "' is not supported: expected " + URL_FORMS);
  }

  String prefix() {
    return prefix;
  }

  /** {@code sql} with the dialect's column types substituted for the placeholders of {@link Migration}. */
  String sql(String sql) {
    return sql.replace("{BYTES}", bytesType);
  }

  /** Names of the tables in the store's schema, sorted. */
  List<String> tables(Connection c) throws SQLException {
    List<String> out = new ArrayList<>();
    try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(listTables)) {
      while (rs.next()) {
        out.add(rs.getString(1));
      }
    }
    return out;
  }
}
