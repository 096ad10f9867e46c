package dev.tide.storage.object;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The {@link ObjectStore} contract, run against every implementation: each subclass hands out a
 * fresh, empty store per test.
 */
abstract class ObjectStoreContractTest {
  protected ObjectStore store;

  /** A new store holding no objects. */
  protected abstract ObjectStore newStore() throws Exception;

  @BeforeEach
  void openStore() throws Exception {
    store = newStore();
  }

  @AfterEach
  void closeStore() throws Exception {
    if (store instanceof AutoCloseable closeable) {
      closeable.close();
    }
  }

  static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  @Test
  void putGetRangeListDelete() {
    store.put("state/2.sst", bytes("hello world"));
    store.put("state/10.sst", bytes("x"));
    store.put("other/1.sst", bytes("y"));
    store.put("top", bytes(""));

    assertThat(store.get("state/2.sst")).isEqualTo(bytes("hello world"));
    assertThat(store.getRange("state/2.sst", 6, 5)).isEqualTo(bytes("world"));
    assertThat(store.getRange("state/2.sst", 0, 11)).isEqualTo(bytes("hello world"));
    assertThat(store.getRange("state/2.sst", 0, 0)).isEmpty();
    assertThat(store.getRange("state/2.sst", 11, 0)).isEmpty();
    assertThat(store.get("top")).isEmpty();
    assertThat(store.exists("state/2.sst")).isTrue();
    assertThat(store.exists("state/3.sst")).isFalse();
    assertThat(store.exists("state")).isFalse();

    assertThat(store.list("state/")).containsExactly("state/10.sst", "state/2.sst");
    assertThat(store.list("state/1")).containsExactly("state/10.sst");
    assertThat(store.list("st")).containsExactly("state/10.sst", "state/2.sst");
    assertThat(store.list("")).containsExactly("other/1.sst", "state/10.sst", "state/2.sst", "top");
    assertThat(store.list("nothing/")).isEmpty();

    store.delete("state/2.sst");
    store.delete("state/2.sst"); // idempotent
    store.delete("never/there");
    assertThat(store.exists("state/2.sst")).isFalse();
    assertThat(store.list("state/")).containsExactly("state/10.sst");
  }

  @Test
  void putReplacesTheWholeObject() {
    store.put("a/b", bytes("one, the longer"));
    store.put("a/b", bytes("two"));
    assertThat(store.get("a/b")).isEqualTo(bytes("two"));
    assertThat(store.list("")).containsExactly("a/b");
  }

  /**
   * An object put as parts (slices of larger arrays, one empty, some larger than a write) reads as
   * their concatenation; the parts' positions do not move, so a second put of the same parts is equal.
   */
  @Test
  void partsAreStoredAsTheirConcatenation() {
    byte[] all = new byte[600_000];
    new Random(11).nextBytes(all);
    byte[] padded = new byte[all.length + 10];
    System.arraycopy(all, 0, padded, 5, all.length);
    List<java.nio.ByteBuffer> parts = List.of(java.nio.ByteBuffer.wrap(padded, 5, 100), java.nio.ByteBuffer.allocate(0),
        java.nio.ByteBuffer.wrap(padded, 105, 300_000).asReadOnlyBuffer(), java.nio.ByteBuffer.wrap(padded, 300_105, all.length - 300_100));
    store.put("parts/one", parts);
    store.put("parts/two", parts);
    assertThat(store.get("parts/one")).isEqualTo(all);
    assertThat(store.get("parts/two")).isEqualTo(all);
    assertThat(store.getRange("parts/one", 299_990, 20)).isEqualTo(slice(all, 299_990, 20));
    store.put("parts/one", List.of());
    assertThat(store.get("parts/one")).isEmpty();
  }

  @Test
  void binaryContentAndRangesOfALargeObject() {
    byte[] all = new byte[3 * 1024 * 1024 + 17];
    new Random(7).nextBytes(all);
    for (int i = 0; i < 256; i++) {
      all[i] = (byte) i;
    }
    store.put("big/object", all);
    assertThat(store.get("big/object")).isEqualTo(all);
    assertThat(store.getRange("big/object", 0, 256)).isEqualTo(slice(all, 0, 256));
    assertThat(store.getRange("big/object", 1_000_003, 65_536))
        .isEqualTo(slice(all, 1_000_003, 65_536));
    assertThat(store.getRange("big/object", all.length - 1, 1))
        .isEqualTo(slice(all, all.length - 1, 1));
  }

  @Test
  void listIsSortedAndCompleteOverManyObjects() {
    List<String> paths = new ArrayList<>();
    for (int i = 0; i < 57; i++) {
      paths.add("many/" + Integer.toString(i * 7919 % 1000, 36) + "/" + i + ".sst");
    }
    List<String> shuffled = new ArrayList<>(paths);
    Collections.shuffle(shuffled, new Random(3));
    for (String p : shuffled) {
      store.put(p, bytes(p));
    }
    store.put("manx", bytes("outside the prefix"));
    Collections.sort(paths);
    assertThat(store.list("many/")).containsExactlyElementsOf(paths);
    assertThat(store.list("man")).hasSize(58).isSorted();
  }

  @Test
  void pathsWithSpacesAndNonAsciiCharacters() {
    List<String> paths = List.of("odd/a b+c%20=&?.sst", "odd/ünïcødé/€.sst", "odd/~tilde's");
    for (String p : paths) {
      store.put(p, bytes(p));
    }
    for (String p : paths) {
      assertThat(store.get(p)).isEqualTo(bytes(p));
      assertThat(store.exists(p)).isTrue();
    }
    assertThat(store.list("odd/")).containsExactlyElementsOf(paths.stream().sorted().toList());
    assertThat(store.list("odd/ü")).containsExactly("odd/ünïcødé/€.sst");
  }

  @Test
  void missingObjectNamesTheOperationAndPath() {
    assertThatThrownBy(() -> store.get("state/9.sst"))
        .isInstanceOf(ObjectNotFoundException.class)
        .hasMessageContaining("'state/9.sst'")
        .hasMessageContaining("get");
    assertThatThrownBy(() -> store.getRange("state/9.sst", 0, 1))
        .isInstanceOf(ObjectNotFoundException.class)
        .hasMessageContaining("'state/9.sst'")
        .hasMessageContaining("getRange");
    assertThatThrownBy(() -> store.getRange("state/9.sst", 0, 0))
        .isInstanceOf(ObjectNotFoundException.class);
    ObjectStoreException e = catchStoreException(() -> store.get("state/9.sst"));
    assertThat(e.operation()).isEqualTo("get");
    assertThat(e.path()).isEqualTo("state/9.sst");
  }

  @Test
  void rangePastTheEndIsRefused() {
    store.put("x", bytes("abc"));
    assertThatThrownBy(() -> store.getRange("x", 2, 2))
        .isInstanceOf(ObjectStoreException.class)
        .isNotInstanceOf(ObjectNotFoundException.class)
        .hasMessageContaining("'x'")
        .hasMessageContaining("object size 3");
    assertThatThrownBy(() -> store.getRange("x", 3, 1))
        .isInstanceOf(ObjectStoreException.class)
        .hasMessageContaining("object size 3");
    assertThatThrownBy(() -> store.getRange("x", 10, 5))
        .isInstanceOf(ObjectStoreException.class)
        .hasMessageContaining("object size 3");
    assertThatThrownBy(() -> store.getRange("x", 4, 0))
        .isInstanceOf(ObjectStoreException.class)
        .hasMessageContaining("object size 3");
    assertThatThrownBy(() -> store.getRange("x", -1, 1))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("'x'");
    assertThatThrownBy(() -> store.getRange("x", 0, -1))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("'x'");
  }

  @Test
  void badPathsAreRefused() {
    for (String bad : List.of("../escape", "/abs", "a//b", "a/./b", "trailing/", "back\\slash")) {
      assertThatThrownBy(() -> store.put(bad, bytes("x")))
          .isInstanceOf(IllegalArgumentException.class).hasMessageContaining(bad);
      assertThatThrownBy(() -> store.get(bad)).isInstanceOf(IllegalArgumentException.class);
      assertThatThrownBy(() -> store.getRange(bad, 0, 1))
          .isInstanceOf(IllegalArgumentException.class);
      assertThatThrownBy(() -> store.exists(bad)).isInstanceOf(IllegalArgumentException.class);
      assertThatThrownBy(() -> store.delete(bad)).isInstanceOf(IllegalArgumentException.class);
    }
    assertThatThrownBy(() -> store.put("", bytes("x")))
        .isInstanceOf(IllegalArgumentException.class);
    assertThat(store.list("")).isEmpty();
  }

  static ObjectStoreException catchStoreException(Runnable r) {
    try {
      r.run();
    } catch (ObjectStoreException e) {
      return e;
    }
    throw new AssertionError("expected an ObjectStoreException");
  }

  private static byte[] slice(byte[] b, int from, int length) {
    byte[] out = new byte[length];
    System.arraycopy(b, from, out, 0, length);
    return out;
  }
}
