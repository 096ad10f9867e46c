package dev.tide.meta.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The store contract on SQLite files, and what only a file can suffer. */
class SqliteMetaStoreTest extends MetaStoreContract {
  @TempDir
  Path dir;
  private int stores;

  @Override
  protected String newStoreUrl() {
    return "jdbc:sqlite:" + dir.resolve("meta-" + stores++ + ".db");
  }

  private Path file() {
    return Path.of(url.substring("jdbc:sqlite:".length()));
  }

  @Test
  void aFileOfGarbageIsRefusedNamingTheFile() throws IOException {
    byte[] garbage = new byte[8192];
    new Random(42).nextBytes(garbage);
    Files.write(file(), garbage);
    assertThatThrownBy(this::open)
        .isInstanceOf(MetaStoreException.class)
        .hasMessageStartingWith("opening meta store SQLite file " + file() + " refused: the file is not a SQLite database or is corrupt")
        .hasMessageContaining("restore it from a backup");
  }

  @Test
  void aDamagedStoreIsRefusedNamingTheFile() throws IOException {
    JdbcMetaStore store = open();
    store.putOptimizerGroup("default", "threads=4");
    store.close();
    // Keep the 100-byte file header, overwrite the rest of the first page (the schema) with garbage.
    byte[] garbage = new byte[4000];
    new Random(7).nextBytes(garbage);
    try (RandomAccessFile f = new RandomAccessFile(file().toFile(), "rw")) {
      f.seek(100);
      f.write(garbage);
    }
    assertThatThrownBy(() -> open().load())
        .isInstanceOf(MetaStoreException.class)
        .hasMessageContaining("meta store SQLite file " + file() + " refused: the file is not a SQLite database or is corrupt");
  }

  @Test
  void theFilesDirectoryIsCreated() {
    url = "jdbc:sqlite:" + dir.resolve("a/b/meta.db");
    open().putOptimizerGroup("g", "x=1");
    assertThat(dir.resolve("a/b/meta.db")).isRegularFile();
    assertThat(open().describe()).isEqualTo("SQLite file " + dir.resolve("a/b/meta.db"));
  }

  @Test
  void unknownUrlsAreRefused() {
    assertThatThrownBy(() -> JdbcMetaStore.open("jdbc:mysql://localhost/tide"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("meta store URL 'jdbc:mysql://localhost/tide' is not supported: expected 'jdbc:sqlite:<file>' or");
    assertThatThrownBy(() -> JdbcMetaStore.open("jdbc:sqlite:"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("names no file");
  }
}
