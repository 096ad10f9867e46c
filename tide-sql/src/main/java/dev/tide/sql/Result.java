package dev.tide.sql;

import java.util.List;

/**
 * What a statement answers: rows (when {@code columns} is not null) and the command tag, e.g.
 * {@code SELECT 3}, {@code CREATE SOURCE}. Values are Java objects of the columns' types
 * (Boolean, Integer, Long, Double, String; TIMESTAMP as Long epoch milliseconds) or null.
 */
public record Result(List<Column> columns, List<Object[]> rows, String tag) {
  public static Result command(String tag) {
    return new Result(null, List.of(), tag);
  }

  public static Result rows(List<Column> columns, List<Object[]> rows) {
    return new Result(columns, rows, "SELECT " + rows.size());
  }

  public boolean hasRows() {
    return columns != null;
  }
}
