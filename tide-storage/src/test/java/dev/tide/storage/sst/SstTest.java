package dev.tide.storage.sst;

import static dev.tide.storage.TestKeys.bytes;
import static dev.tide.storage.TestKeys.key;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tide.proto.store.SstInfo;
import dev.tide.storage.merge.EntryCursor;
import dev.tide.storage.merge.Lookup;
import dev.tide.storage.object.InMemoryObjectStore;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class SstTest {
  private static final int N = 5000;

  private final InMemoryObjectStore objects = new InMemoryObjectStore();

  /** Keys with pk 0, 2, 4, ... of tables 7 and 9; every 10th a tombstone; every 7th value empty. */
  private SstInfo writeSample() {
    SstWriter w = new SstWriter();
    for (int i = 0; i < N; i++) {
      int table = i < N / 2 ? 7 : 9;
      boolean tomb = i % 10 == 3;
      byte[] value = i % 7 == 0 ? new byte[0] : bytes("value-" + i);
      w.add(key(table, i / 64, 2L * i), 100 + i % 5, tomb, value);
    }
    SstWriter.Built built = w.finish(42, "state/42.sst");
    objects.put("state/42.sst", built.bytes());
    return built.info();
  }

  private static byte[] sampleKey(int i) {
    return key(i < N / 2 ? 7 : 9, i / 64, 2L * i);
  }

  @Test
  void infoDescribesTheFile() {
    SstInfo info = writeSample();
    assertThat(info.getId()).isEqualTo(42);
    assertThat(info.getObjectPath()).isEqualTo("state/42.sst");
    assertThat(info.getKeyCount()).isEqualTo(N);
    assertThat(info.getTombstoneCount()).isEqualTo(N / 10);
    assertThat(info.getMinEpoch()).isEqualTo(100);
    assertThat(info.getMaxEpoch()).isEqualTo(104);
    assertThat(info.getTableIdsList()).containsExactly(7, 9);
    assertThat(info.getSmallestKey().toByteArray()).isEqualTo(sampleKey(0));
    assertThat(info.getLargestKey().toByteArray()).isEqualTo(sampleKey(N - 1));
    assertThat(info.getFileSize()).isEqualTo(objects.get("state/42.sst").length);
  }

  @Test
  void pointGetsFindPresentKeysAndMissAbsentOnes() {
    SstInfo info = writeSample();
    SstReader r = SstReader.open(objects, info, new BlockCache(1 << 20));
    assertThat(r.blockCount()).isGreaterThan(10);
    for (int i = 0; i < N; i++) {
      Lookup l = r.get(sampleKey(i));
      assertThat(l).as("key %d", i).isNotNull();
      assertThat(l.epoch()).isEqualTo(100 + i % 5);
      if (i % 10 == 3) {
        assertThat(l.tombstone()).isTrue();
      } else {
        assertThat(l.tombstone()).isFalse();
        assertThat(l.value()).isEqualTo(i % 7 == 0 ? new byte[0] : bytes("value-" + i));
      }
      // odd keys in between are absent
      assertThat(r.get(key(i < N / 2 ? 7 : 9, i / 64, 2L * i + 1))).isNull();
    }
    assertThat(r.get(new byte[0])).isNull();
    assertThat(r.get(key(8, 0, 0))).isNull();
    assertThat(r.get(key(10, 0, 0))).isNull();
  }

  @Test
  void cursorsIterateRangesBothWays() {
    SstInfo info = writeSample();
    SstReader r = SstReader.open(objects, info, new BlockCache(1 << 20));

    // full range
    assertThat(collect(r.cursor(new byte[0], null, false, true))).hasSize(N);
    List<Integer> reverse = collect(r.cursor(new byte[0], null, true, true));
    assertThat(reverse).hasSize(N);
    assertThat(reverse.get(0)).isEqualTo(N - 1);

    // [sampleKey(100), sampleKey(900)) and the same with bounds between keys
    List<Integer> expected = new ArrayList<>();
    for (int i = 100; i < 900; i++) {
      expected.add(i);
    }
    assertThat(collect(r.cursor(sampleKey(100), sampleKey(900), false, true)))
        .isEqualTo(expected);
    assertThat(collect(r.cursor(key(7, 99 / 64, 199), key(7, 899 / 64, 1799), false, true)))
        .isEqualTo(expected);
    List<Integer> expectedReverse = new ArrayList<>(expected);
    java.util.Collections.reverse(expectedReverse);
    assertThat(collect(r.cursor(sampleKey(100), sampleKey(900), true, true)))
        .isEqualTo(expectedReverse);

    // whole table 9
    assertThat(collect(r.cursor(key(9, 0, 0), key(10, 0, 0), false, true)))
        .hasSize(N / 2).startsWith(N / 2);
    // empty and inverted ranges
    assertThat(collect(r.cursor(key(8, 0, 0), key(9, 0, 0), false, true))).isEmpty();
    assertThat(collect(r.cursor(sampleKey(900), sampleKey(100), false, true))).isEmpty();
    assertThat(collect(r.cursor(sampleKey(900), sampleKey(100), true, true))).isEmpty();
    assertThat(collect(r.cursor(key(10, 0, 0), null, true, true))).isEmpty();
  }

  /** Decodes the entry index from the key (the pk is 2 * index). */
  private static List<Integer> collect(EntryCursor c) {
    List<Integer> out = new ArrayList<>();
    for (; c.valid(); c.next()) {
      byte[] k = c.copyKey();
      long pk = java.nio.ByteBuffer.wrap(k, 6, 8).getLong();
      out.add((int) (pk / 2));
    }
    return out;
  }

  @Test
  void blockCacheServesRepeatedReads() {
    SstInfo info = writeSample();
    BlockCache cache = new BlockCache(1 << 20);
    SstReader r = SstReader.open(objects, info, cache);
    long before = objects.rangeReads();
    r.get(sampleKey(10));
    r.get(sampleKey(11));
    r.get(sampleKey(10));
    assertThat(objects.rangeReads() - before).isEqualTo(1);
    assertThat(cache.stats().hits()).isEqualTo(2);
    assertThat(cache.stats().misses()).isEqualTo(1);
    assertThat(cache.sizeBytes()).isPositive().isLessThanOrEqualTo(cache.maxBytes());
  }

  @Test
  void blockCacheStaysWithinItsBound() {
    SstInfo info = writeSample();
    BlockCache cache = new BlockCache(20_000);
    SstReader r = SstReader.open(objects, info, cache);
    for (int i = 0; i < N; i += 3) {
      r.get(sampleKey(i));
    }
    assertThat(cache.sizeBytes()).isLessThanOrEqualTo(20_000);
    assertThat(cache.stats().evictions()).isPositive();
  }

  @Test
  void bloomFilterHasFewFalsePositives() {
    SstWriter w = new SstWriter();
    for (int i = 0; i < 10_000; i++) {
      w.add(key(1, 0, 2L * i), 1, false, bytes("v"));
    }
    SstWriter.Built built = w.finish(1, "b/1.sst");
    objects.put("b/1.sst", built.bytes());
    SstReader r = SstReader.open(objects, built.info(), new BlockCache(0));
    int falsePositives = 0;
    for (int i = 0; i < 10_000; i++) {
      assertThat(r.mayContain(key(1, 0, 2L * i))).isTrue();
      if (r.mayContain(key(1, 0, 2L * i + 1))) {
        falsePositives++;
      }
    }
    // ~1% expected at 10 bits per key; the bound is loose but catches a broken filter
    assertThat(falsePositives).isLessThan(300);
  }

  /** A filter over {@link SstReader#BLOOM_PIECE_BYTES} is read in pieces, and a flipped bit in a later piece is caught. */
  @Test
  void aLargeBloomFilterIsReadInPiecesAndVerified() {
    SstWriter w = new SstWriter(SstWriter.DEFAULT_BLOCK_TARGET_BYTES, 64);
    int n = 40_000; // 64 bits per key: 320 KB of filter
    for (int i = 0; i < n; i++) {
      w.add(key(1, 0, 2L * i), 1, false, bytes("v"));
    }
    SstWriter.Built built = w.finish(1, "b/1.sst");
    byte[] file = built.bytes();
    objects.put("b/1.sst", file);
    SstReader r = SstReader.open(objects, built.info(), new BlockCache(0));
    int falsePositives = 0;
    for (int i = 0; i < n; i++) {
      assertThat(r.mayContain(key(1, 0, 2L * i))).isTrue();
      falsePositives += r.mayContain(key(1, 0, 2L * i + 1)) ? 1 : 0;
    }
    assertThat(falsePositives).isLessThan(20);
    byte[] flipped = file.clone();
    flipped[file.length - SstFormat.FOOTER_BYTES - 1000] ^= 0x10; // in the filter's last piece
    objects.put("b/2.sst", flipped);
    SstInfo info = built.info().toBuilder().setObjectPath("b/2.sst").build();
    assertThatThrownBy(() -> SstReader.open(objects, info, new BlockCache(0))).isInstanceOf(CorruptSstException.class)
        .hasMessageContaining("bloom filter");
  }

  @Test
  void writerRefusesKeysOutOfOrder() {
    SstWriter w = new SstWriter(64, 10);
    w.add(bytes("b"), 1, false, bytes("1"));
    assertThatThrownBy(() -> w.add(bytes("a"), 1, false, bytes("2")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("0x61") // "a"
        .hasMessageContaining("0x62") // "b"
        .hasMessageContaining("strictly increasing");
    assertThatThrownBy(() -> w.add(bytes("b"), 2, false, bytes("2")))
        .isInstanceOf(IllegalArgumentException.class);
    // also across a block boundary
    for (int i = 0; i < 20; i++) {
      w.add(bytes("c" + (char) ('a' + i)), 1, false, new byte[40]);
    }
    assertThatThrownBy(() -> w.add(bytes("ca"), 1, false, bytes("x")))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("0x6361");
  }

  @Test
  void emptyWriterCannotFinish() {
    assertThatThrownBy(() -> new SstWriter().finish(3, "x/3.sst"))
        .isInstanceOf(IllegalStateException.class).hasMessageContaining("no entries");
  }

  @Test
  void unsignedOrderAndHugeEntries() {
    SstWriter w = new SstWriter(128, 10);
    byte[] big = new byte[10_000];
    big[9_999] = 5;
    w.add(new byte[0], 1, false, bytes("empty key"));
    w.add(new byte[] {0x01}, 1, false, big);
    w.add(new byte[] {(byte) 0x80}, 2, true, null);
    w.add(new byte[] {(byte) 0xff, 0x00}, 3, false, new byte[0]);
    SstWriter.Built built = w.finish(5, "u/5.sst");
    objects.put("u/5.sst", built.bytes());
    assertThat(built.info().getTableIdsCount()).isZero();
    SstReader r = SstReader.open(objects, built.info(), new BlockCache(1 << 20));
    assertThat(r.get(new byte[0]).value()).isEqualTo(bytes("empty key"));
    assertThat(r.get(new byte[] {0x01}).value()).isEqualTo(big);
    assertThat(r.get(new byte[] {(byte) 0x80}).tombstone()).isTrue();
    assertThat(r.get(new byte[] {(byte) 0xff, 0x00}).value()).isEmpty();
    assertThat(r.get(new byte[] {(byte) 0xff})).isNull();
  }
}
