package dev.tide.storage.compact;

import static dev.tide.storage.TestKeys.bytes;
import static dev.tide.storage.TestKeys.key;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tide.common.store.StoreKeys;
import dev.tide.proto.store.SstInfo;
import dev.tide.storage.merge.EntryCursor;
import dev.tide.storage.object.InMemoryObjectStore;
import dev.tide.storage.sst.BlockCache;
import dev.tide.storage.sst.SstReader;
import dev.tide.storage.sst.SstWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class CompactorTest {
  private final InMemoryObjectStore objects = new InMemoryObjectStore();
  private final BlockCache cache = new BlockCache(1 << 20);
  private final AtomicLong ids = new AtomicLong(100);

  /** Writes an SST of keys {@code from..to step} at {@code epoch}; odd pks as tombstones if asked. */
  private SstInfo sst(long id, long epoch, int from, int to, int step, boolean oddTombstones) {
    SstWriter w = new SstWriter();
    for (int i = from; i <= to; i += step) {
      w.add(key(1, 0, i), epoch, oddTombstones && i % 2 == 1, bytes("e" + epoch + "-" + i));
    }
    SstWriter.Built built = w.finish(id, "in/" + id + ".sst");
    objects.put(built.info().getObjectPath(), built.bytes());
    return built.info();
  }

  private record Entry(long pk, long epoch, boolean tombstone, String value) {}

  private List<Entry> read(List<SstInfo> ssts) {
    List<Entry> out = new ArrayList<>();
    for (SstInfo info : ssts) {
      EntryCursor c = SstReader.open(objects, info, cache).cursor(new byte[0], null, false, true);
      for (; c.valid(); c.next()) {
        long pk = java.nio.ByteBuffer.wrap(c.copyKey(), 6, 8).getLong();
        out.add(new Entry(pk, c.epoch(), c.tombstone(), new String(c.copyValue())));
      }
    }
    return out;
  }

  @Test
  void newestInputWinsAndTombstonesAreKept() {
    SstInfo old = sst(1, 1, 0, 99, 1, false);
    SstInfo mid = sst(2, 2, 0, 99, 3, true);
    SstInfo newest = sst(3, 3, 50, 59, 1, false);
    List<SstInfo> out = Compactor.compact(objects, cache, List.of(newest, mid, old), false,
        1 << 20, ids::incrementAndGet, "out");
    assertThat(out).hasSize(1);
    assertThat(out.get(0).getObjectPath()).isEqualTo("out/" + out.get(0).getId() + ".sst");
    assertThat(out.get(0).getMinEpoch()).isEqualTo(1);
    assertThat(out.get(0).getMaxEpoch()).isEqualTo(3);
    List<Entry> entries = read(out);
    assertThat(entries).hasSize(100);
    for (Entry e : entries) {
      long expectedEpoch = e.pk() >= 50 && e.pk() <= 59 ? 3 : e.pk() % 3 == 0 ? 2 : 1;
      assertThat(e.epoch()).as("pk %d", e.pk()).isEqualTo(expectedEpoch);
      assertThat(e.tombstone()).isEqualTo(expectedEpoch == 2 && e.pk() % 2 == 1);
      if (!e.tombstone()) {
        assertThat(e.value()).isEqualTo("e" + expectedEpoch + "-" + e.pk());
      }
    }
    assertThat(out.get(0).getTombstoneCount())
        .isEqualTo(entries.stream().filter(Entry::tombstone).count());
  }

  @Test
  void droppedTombstonesAndSplitOutputs() {
    SstInfo old = sst(1, 1, 0, 999, 1, false);
    SstInfo deletes = sst(2, 2, 1, 999, 2, true); // deletes every odd key
    List<SstInfo> out = Compactor.compact(objects, cache, List.of(deletes, old), true, 2000,
        ids::incrementAndGet, "out");
    assertThat(out.size()).isGreaterThan(2);
    for (int i = 1; i < out.size(); i++) {
      assertThat(StoreKeys.compare(out.get(i - 1).getLargestKey(), out.get(i).getSmallestKey()))
          .isNegative();
    }
    List<Entry> entries = read(out);
    assertThat(entries).hasSize(500).allSatisfy(e -> {
      assertThat(e.pk() % 2).isZero();
      assertThat(e.tombstone()).isFalse();
    });
    assertThat(out).allSatisfy(s -> assertThat(s.getTombstoneCount()).isZero());
  }

  @Test
  void everythingDeletedGivesNoOutput() {
    SstWriter w = new SstWriter();
    w.add(key(1, 0, 1), 1, true, null);
    SstWriter.Built built = w.finish(7, "in/7.sst");
    objects.put("in/7.sst", built.bytes());
    assertThat(Compactor.compact(objects, cache, List.of(built.info()), true, 1 << 20,
        ids::incrementAndGet, "out")).isEmpty();
  }
}
