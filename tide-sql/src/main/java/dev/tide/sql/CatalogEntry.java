package dev.tide.sql;

import java.util.List;

/**
 * A catalog object as the cluster keeps it durably (meta's store): name, kind, the statement that
 * defines it, and the names of the objects it reads. The engine replays the statement to rebuild it.
 *
 * @param kind {@link #SOURCE}, {@link #TABLE}, {@link #VIEW} or {@link #SINK}
 */
public record CatalogEntry(String name, String kind, String sql, List<String> dependsOn) {
  public static final String SOURCE = "source";
  public static final String TABLE = "table";
  public static final String VIEW = "view";
  public static final String SINK = "sink";

  public CatalogEntry {
    dependsOn = List.copyOf(dependsOn);
  }
}
