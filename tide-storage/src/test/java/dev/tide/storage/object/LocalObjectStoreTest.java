package dev.tide.storage.object;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LocalObjectStoreTest {
  @TempDir Path dir;

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  @Test
  void putGetRangeListDelete() {
    LocalObjectStore store = new LocalObjectStore(dir);
    store.put("state/2.sst", bytes("hello world"));
    store.put("state/10.sst", bytes("x"));
    store.put("other/1.sst", bytes("y"));
    store.put("top", bytes(""));

    assertThat(store.get("state/2.sst")).isEqualTo(bytes("hello world"));
    assertThat(store.getRange("state/2.sst", 6, 5)).isEqualTo(bytes("world"));
    assertThat(store.getRange("state/2.sst", 0, 0)).isEmpty();
    assertThat(store.get("top")).isEmpty();
    assertThat(store.exists("state/2.sst")).isTrue();
    assertThat(store.exists("state/3.sst")).isFalse();

    assertThat(store.list("state/")).containsExactly("state/10.sst", "state/2.sst");
    assertThat(store.list("state/1")).containsExactly("state/10.sst");
    assertThat(store.list("")).containsExactly("other/1.sst", "state/10.sst", "state/2.sst", "top");
    assertThat(store.list("nothing/")).isEmpty();

    store.delete("state/2.sst");
    store.delete("state/2.sst"); // idempotent
    assertThat(store.exists("state/2.sst")).isFalse();
    assertThat(store.list("state/")).containsExactly("state/10.sst");
  }

  @Test
  void putReplacesAtomicallyAndLeavesNoTempFiles() throws Exception {
    LocalObjectStore store = new LocalObjectStore(dir);
    store.put("a/b", bytes("one"));
    store.put("a/b", bytes("two"));
    assertThat(store.get("a/b")).isEqualTo(bytes("two"));
    try (var tmp = Files.list(dir.resolve(".tmp"))) {
      assertThat(tmp).isEmpty();
    }
    assertThat(store.list("")).containsExactly("a/b");
  }

  @Test
  void missingObjectNamesThePath() {
    LocalObjectStore store = new LocalObjectStore(dir);
    assertThatThrownBy(() -> store.get("state/9.sst"))
        .isInstanceOf(ObjectNotFoundException.class)
        .hasMessageContaining("state/9.sst")
        .hasMessageContaining("get");
    assertThatThrownBy(() -> store.getRange("state/9.sst", 0, 1))
        .isInstanceOf(ObjectNotFoundException.class)
        .hasMessageContaining("state/9.sst");
  }

  @Test
  void rangePastTheEndIsRefused() {
    LocalObjectStore store = new LocalObjectStore(dir);
    store.put("x", bytes("abc"));
    assertThatThrownBy(() -> store.getRange("x", 2, 2))
        .isInstanceOf(ObjectStoreException.class)
        .hasMessageContaining("'x'")
        .hasMessageContaining("object size 3");
  }

  @Test
  void badPathsAreRefused() {
    LocalObjectStore store = new LocalObjectStore(dir);
    assertThatThrownBy(() -> store.put("../escape", bytes("x")))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("../escape");
    assertThatThrownBy(() -> store.put("/abs", bytes("x")))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> store.put("a//b", bytes("x")))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> store.put(".tmp/x", bytes("x")))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining(".tmp");
  }
}
