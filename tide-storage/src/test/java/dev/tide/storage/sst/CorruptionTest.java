package dev.tide.storage.sst;

import static dev.tide.storage.TestKeys.bytes;
import static dev.tide.storage.TestKeys.key;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tide.common.store.VersionDeltas;
import dev.tide.proto.store.SstInfo;
import dev.tide.proto.store.StoreVersion;
import dev.tide.storage.CloseableIterator;
import dev.tide.storage.KeyValue;
import dev.tide.storage.StateStore;
import dev.tide.storage.object.InMemoryObjectStore;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** A damaged SST object is detected and reported by path; its data is never returned. */
class CorruptionTest {
  private static final String PATH = "state/1.sst";

  private final InMemoryObjectStore objects = new InMemoryObjectStore();
  private final SstInfo info = writeSst();
  private final byte[] file = objects.get(PATH);
  private final long indexOffset = ByteBuffer.wrap(file, file.length - 48, 8).getLong();
  private final long bloomOffset = ByteBuffer.wrap(file, file.length - 36, 8).getLong();

  private SstInfo writeSst() {
    SstWriter w = new SstWriter();
    for (int i = 0; i < 2000; i++) {
      w.add(key(1, 0, i), 1, false, bytes("value-" + i));
    }
    SstWriter.Built built = w.finish(1, PATH);
    objects.put(PATH, built.bytes());
    return built.info();
  }

  /** A fresh store (empty caches) reading a version holding the SST. */
  private StateStore store() {
    StateStore store = new StateStore(objects, new BlockCache(1 << 20), "state",
        new AtomicLong(100)::incrementAndGet);
    StoreVersion v = VersionDeltas.apply(VersionDeltas.empty(),
        VersionDeltas.checkpoint(VersionDeltas.empty(), 1, List.of(info)));
    store.commit(v);
    return store;
  }

  private static void drain(StateStore store) {
    try (CloseableIterator<KeyValue> it = store.scan(new byte[0], null)) {
      while (it.hasNext()) {
        it.next();
      }
    }
  }

  @Test
  void intactFileReads() {
    StateStore store = store();
    assertThat(store.get(key(1, 0, 5))).hasValueSatisfying(
        v -> assertThat(v).isEqualTo(bytes("value-5")));
    drain(store);
  }

  @Test
  void damagedValueInDataBlockIsDetected() {
    // offset 30 lies inside the first entry of block 0 (its value bytes)
    objects.flipByte(PATH, 30);
    StateStore store = store();
    for (int attempt = 0; attempt < 2; attempt++) { // failures are not cached
      assertThatThrownBy(() -> store.get(key(1, 0, 0)))
          .isInstanceOf(CorruptSstException.class)
          .hasMessageContaining(PATH)
          .hasMessageContaining("data block 0")
          .hasMessageContaining("CRC32C mismatch");
    }
    assertThatThrownBy(() -> drain(store))
        .isInstanceOf(CorruptSstException.class).hasMessageContaining(PATH);
    assertThatThrownBy(() -> store.last(new byte[0], key(1, 0, 3)))
        .isInstanceOf(CorruptSstException.class).hasMessageContaining(PATH);
    // other blocks are intact and still readable
    assertThat(store.get(key(1, 0, 1999))).isPresent();
  }

  @Test
  void damagedBlockTrailerIsDetected() {
    SstReader r = SstReader.open(objects, info, new BlockCache(0));
    objects.flipByte(PATH, indexOffset - 1); // checksum of the last block
    assertThatThrownBy(() -> r.get(key(1, 0, 1999)))
        .isInstanceOf(CorruptSstException.class)
        .hasMessageContaining(PATH)
        .hasMessageContaining("data block " + (r.blockCount() - 1));
  }

  @Test
  void damagedIndexIsDetected() {
    objects.flipByte(PATH, indexOffset + 7);
    StateStore store = store();
    assertThatThrownBy(() -> store.get(key(1, 0, 5)))
        .isInstanceOf(CorruptSstException.class)
        .hasMessageContaining(PATH)
        .hasMessageContaining("index");
    assertThatThrownBy(() -> drain(store))
        .isInstanceOf(CorruptSstException.class).hasMessageContaining(PATH);
  }

  @Test
  void damagedBloomIsDetected() {
    objects.flipByte(PATH, bloomOffset + 9);
    StateStore store = store();
    assertThatThrownBy(() -> store.get(key(1, 0, 5)))
        .isInstanceOf(CorruptSstException.class)
        .hasMessageContaining(PATH)
        .hasMessageContaining("bloom");
  }

  @Test
  void damagedFooterIsDetected() {
    objects.flipByte(PATH, file.length - 40); // inside the index length field
    StateStore store = store();
    assertThatThrownBy(() -> store.get(key(1, 0, 5)))
        .isInstanceOf(CorruptSstException.class)
        .hasMessageContaining(PATH)
        .hasMessageContaining("footer")
        .hasMessageContaining("CRC32C mismatch");
    assertThatThrownBy(() -> drain(store))
        .isInstanceOf(CorruptSstException.class).hasMessageContaining(PATH);
  }

  @Test
  void badMagicIsDetected() {
    objects.flipByte(PATH, file.length - 1);
    StateStore store = store();
    assertThatThrownBy(() -> store.get(key(1, 0, 5)))
        .isInstanceOf(CorruptSstException.class)
        .hasMessageContaining(PATH)
        .hasMessageContaining("bad magic");
  }

  @Test
  void recordedSizeMismatchIsDetected() {
    SstInfo wrong = info.toBuilder().setFileSize(info.getFileSize() - 1).build();
    assertThatThrownBy(() -> SstReader.open(objects, wrong, new BlockCache(0)))
        .isInstanceOf(CorruptSstException.class).hasMessageContaining(PATH);
    SstInfo wrongCount = info.toBuilder().setKeyCount(7).build();
    assertThatThrownBy(() -> SstReader.open(objects, wrongCount, new BlockCache(0)))
        .isInstanceOf(CorruptSstException.class).hasMessageContaining("key_count 7");
  }

  @Test
  void everySingleByteFlipIsDetectedOrHarmless() {
    // Flip each byte in turn: reading everything must either fail with CorruptSstException or
    // return exactly the original data (never silently altered data).
    for (int offset = 0; offset < file.length; offset += 37) {
      objects.put(PATH, file);
      objects.flipByte(PATH, offset);
      StateStore store = store();
      try (CloseableIterator<KeyValue> it = store.scan(new byte[0], null)) {
        int i = 0;
        while (it.hasNext()) {
          KeyValue kv = it.next();
          assertThat(kv.key()).isEqualTo(key(1, 0, i));
          assertThat(kv.value()).isEqualTo(bytes("value-" + i));
          i++;
        }
        assertThat(i).as("flip at %d", offset).isEqualTo(2000);
      } catch (CorruptSstException e) {
        assertThat(e).hasMessageContaining(PATH);
      }
    }
  }
}
