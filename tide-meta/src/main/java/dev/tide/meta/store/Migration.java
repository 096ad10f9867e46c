package dev.tide.meta.store;

import java.util.List;

/**
 * One step of the schema: the SQL statements that take a store from schema version
 * {@code version - 1} to {@code version}. Statements are written once for both dialects; the
 * placeholder {@code {BYTES}} stands for the binary column type ({@code BLOB} in SQLite,
 * {@code BYTEA} in PostgreSQL). A migration, never changed once released, runs in one transaction
 * together with the row it adds to {@code schema_version}.
 */
record Migration(int version, String description, List<String> statements) {
  Migration {
    if (version < 1 || description.isBlank() || statements.isEmpty()) {
      throw new IllegalArgumentException("migration " + version + " '" + description + "' is not valid: expected a version >= 1,"
          + " a description and at least one statement");
    }
    statements = List.copyOf(statements);
  }

  /** Checks that {@code migrations} are numbered 1, 2, 3, ... in order. */
  static List<Migration> sequence(List<Migration> migrations) {
    for (int i = 0; i < migrations.size(); i++) {
      if (migrations.get(i).version() != i + 1) {
        throw new IllegalArgumentException("migration at position " + i + " has version " + migrations.get(i).version()
            + "; expected " + (i + 1) + ": migrations are numbered 1, 2, 3, ... without gaps");
      }
    }
    return List.copyOf(migrations);
  }
}
