package dev.tide.meta.store;

import java.util.List;
import java.util.Objects;

/**
 * A catalog object of the SQL front end (a source, a table, a view, a sink) as the meta store keeps
 * it: its name (unique across kinds), its kind, the statement that defines it, and the names of the
 * objects it reads. Meta does not interpret the definition; it refuses to forget an object others
 * still depend on.
 *
 * @param kind {@code source}, {@code table}, {@code view} or {@code sink}
 * @param definition the defining statement (e.g. {@code CREATE SOURCE ...}), replayed by the SQL front end
 * @param dependsOn names of the catalog objects the definition reads, sorted
 */
public record CatalogRecord(String name, String kind, String definition, List<String> dependsOn) {
  public CatalogRecord {
    Objects.requireNonNull(definition, "definition");
    if (name == null || !name.matches("[A-Za-z_][A-Za-z0-9_]*")) {
      throw new IllegalArgumentException("catalog object name '" + name + "' must be an identifier ([A-Za-z_][A-Za-z0-9_]*)");
    }
    if (kind == null || !List.of("source", "table", "view", "sink").contains(kind)) {
      throw new IllegalArgumentException("catalog object '" + name + "' has kind '" + kind + "'; expected source, table, view or sink");
    }
    dependsOn = dependsOn.stream().sorted().distinct().toList();
  }

  /** {@link #dependsOn} as stored: names joined by commas. */
  String dependsOnText() {
    return String.join(",", dependsOn);
  }

  static List<String> parseDependsOn(String text) {
    return text == null || text.isEmpty() ? List.of() : List.of(text.split(","));
  }
}
