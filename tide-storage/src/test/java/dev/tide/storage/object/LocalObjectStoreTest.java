package dev.tide.storage.object;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LocalObjectStoreTest extends ObjectStoreContractTest {
  @TempDir Path dir;

  @Override
  protected ObjectStore newStore() {
    return new LocalObjectStore(dir);
  }

  @Test
  void putLeavesNoTempFilesAndListSkipsTheTempFolder() throws Exception {
    store.put("a/b", bytes("one"));
    store.put("a/b", bytes("two"));
    try (var tmp = Files.list(dir.resolve(".tmp"))) {
      assertThat(tmp).isEmpty();
    }
    Files.writeString(dir.resolve(".tmp").resolve("leftover"), "x");
    assertThat(store.list("")).containsExactly("a/b");
    assertThat(store.list(".tmp")).isEmpty();
  }

  @Test
  void theTempFolderIsRefusedAsAPath() {
    assertThatThrownBy(() -> store.put(".tmp/x", bytes("x")))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining(".tmp");
    assertThatThrownBy(() -> store.get(".tmp"))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining(".tmp");
  }

  @Test
  void objectsAreFilesUnderTheRoot() throws Exception {
    store.put("state/1.sst", bytes("abc"));
    assertThat(Files.readString(dir.resolve("state/1.sst"))).isEqualTo("abc");
    assertThat(((LocalObjectStore) store).root()).isEqualTo(dir.toAbsolutePath().normalize());
  }
}
