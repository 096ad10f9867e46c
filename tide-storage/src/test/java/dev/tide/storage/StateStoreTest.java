package dev.tide.storage;

import static dev.tide.storage.TestKeys.bytes;
import static dev.tide.storage.TestKeys.key;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tide.common.store.StoreKeys;
import dev.tide.common.store.VersionDeltas;
import dev.tide.proto.store.SstInfo;
import dev.tide.proto.store.StoreVersion;
import dev.tide.storage.object.InMemoryObjectStore;
import dev.tide.storage.object.ObjectStoreException;
import dev.tide.storage.sst.BlockCache;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class StateStoreTest {
  private final InMemoryObjectStore objects = new InMemoryObjectStore();
  private final AtomicLong ids = new AtomicLong();
  private final StateStore store = newStore(StoreOptions.defaults());

  private StateStore newStore(StoreOptions options) {
    return new StateStore(objects, new BlockCache(1 << 20), "state", ids::incrementAndGet,
        options);
  }

  private static SortedWriteBatch batch(Object... keysAndValues) {
    WriteBuffer b = new WriteBuffer();
    for (int i = 0; i < keysAndValues.length; i += 2) {
      byte[] k = (byte[]) keysAndValues[i];
      String v = (String) keysAndValues[i + 1];
      if (v == null) {
        b.delete(k);
      } else {
        b.put(k, bytes(v));
      }
    }
    return b.freeze();
  }

  /** What meta does: apply the checkpoint delta and commit the result. */
  private static StoreVersion checkpoint(StateStore s, long epoch) {
    List<SstInfo> ssts = s.sync(epoch);
    StoreVersion cur = s.committedVersion();
    StoreVersion next = VersionDeltas.apply(cur, VersionDeltas.checkpoint(cur, epoch, ssts));
    s.commit(next);
    return next;
  }

  private static String value(StateStore s, byte[] key) {
    return s.get(key).map(String::new).orElse(null);
  }

  private static List<String> scanValues(CloseableIterator<KeyValue> it) {
    List<String> out = new ArrayList<>();
    try (it) {
      while (it.hasNext()) {
        out.add(new String(it.next().value()));
      }
    }
    return out;
  }

  @Test
  void writeBufferLaterWritesWin() {
    WriteBuffer b = new WriteBuffer();
    b.put(bytes("k"), bytes("1"));
    b.delete(bytes("k"));
    b.put(bytes("j"), bytes("2"));
    b.put(bytes("j"), bytes("3"));
    b.delete(bytes("x"));
    assertThat(b.get(bytes("j"))).isEqualTo(bytes("3"));
    assertThat(b.contains(bytes("k"))).isTrue();
    assertThat(b.get(bytes("k"))).isNull();
    SortedWriteBatch frozen = b.freeze();
    assertThat(b.isEmpty()).isTrue();
    assertThat(frozen.size()).isEqualTo(3);
    assertThat(frozen.key(0)).isEqualTo(bytes("j"));
    assertThat(frozen.value(0)).isEqualTo(bytes("3"));
    assertThat(frozen.isTombstone(1)).isTrue();
    assertThat(frozen.isTombstone(2)).isTrue();
  }

  /**
   * A batch over slices laid out as a writer filled its array (values before keys, an overwritten
   * value left behind, a tombstone with no value) reads like a built one, in memory and after a sync
   * into a file; slices outside the array are refused.
   */
  @Test
  void sliceBatchReadsAsWrittenBeforeAndAfterSync() {
    byte[] a = key(1, 0, "a");
    byte[] b = key(1, 0, "b");
    byte[] c = key(1, 0, "c");
    // layout: "old" | value of c | key c | key a | value of a | key b (a tombstone), and a slice too
    // large for a page (an array of its own) that no entry uses
    ByteArena arena = new ByteArena();
    arena.append(bytes("old"), 0, 3);
    int cValue = arena.append(bytes("c1"), 0, 2);
    int cKey = arena.append(c, 0, c.length);
    arena.append(new byte[ByteArena.PAGE + 1], 0, ByteArena.PAGE + 1);
    int aKey = arena.append(a, 0, a.length);
    int aValue = arena.append(bytes("a1"), 0, 2);
    int bKey = arena.append(b, 0, b.length);
    SortedWriteBatch batch = SortedWriteBatch.ofSortedSlices(arena, new int[] {aKey, bKey, cKey}, new int[] {a.length, b.length, c.length},
        new int[] {aValue, 0, cValue}, new int[] {2, -1, 2}, 3);
    store.ingest(1, batch(b, "b0"));
    store.ingest(2, batch);
    assertThat(value(store, a)).isEqualTo("a1");
    assertThat(value(store, b)).isNull();
    assertThat(scanValues(store.scan(a, null))).containsExactly("a1", "c1");
    checkpoint(store, 2);
    assertThat(value(store, b)).isNull();
    assertThat(scanValues(store.scan(a, null))).containsExactly("a1", "c1");

    assertThatThrownBy(() -> SortedWriteBatch.ofSortedSlices(arena, new int[] {bKey + b.length - 1}, new int[] {ByteArena.PAGE},
        new int[] {0}, new int[] {1}, 1))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("entry 0").hasMessageContaining("outside");
    assertThatThrownBy(() -> SortedWriteBatch.ofSortedSlices(arena, new int[] {0}, new int[] {1}, new int[] {0}, new int[] {1}, 2))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("2 entries");
  }

  /**
   * A sync hands the batches' reads to the SSTs it uploaded: the batches leave the heap before meta
   * commits, reads (point, both scan directions) see the same data, a later batch still shadows the
   * synced run, and a recovery drops a synced run that was never committed.
   */
  @Test
  void syncedBatchesLeaveTheHeapAndReadsGoToTheirSsts() {
    byte[] a = key(1, 0, "a");
    byte[] b = key(1, 0, "b");
    byte[] c = key(1, 0, "c");
    store.ingest(1, batch(a, "a1", b, "b1"));
    store.ingest(2, batch(b, "b2", c, "c2"));
    List<SstInfo> ssts = store.sync(2);
    assertThat(store.uncommittedBatchCount()).isZero();
    assertThat(store.uncommittedBytes()).isZero();
    assertThat(value(store, a)).isEqualTo("a1");
    assertThat(value(store, b)).isEqualTo("b2");
    assertThat(scanValues(store.scan(new byte[0], null))).containsExactly("a1", "b2", "c2");
    assertThat(scanValues(store.scanReverse(new byte[0], null))).containsExactly("c2", "b2", "a1");
    assertThat(store.committedRead().scan(new byte[0], null).hasNext()).as("not committed yet").isFalse();

    store.ingest(3, batch(a, null, c, "c3"));
    assertThat(value(store, a)).isNull();
    assertThat(scanValues(store.scan(new byte[0], null))).containsExactly("b2", "c3");

    StoreVersion cur = store.committedVersion();
    store.commit(VersionDeltas.apply(cur, VersionDeltas.checkpoint(cur, 2, ssts)));
    assertThat(scanValues(store.scan(new byte[0], null))).containsExactly("b2", "c3");
    assertThat(scanValues(store.committedRead().scan(new byte[0], null))).containsExactly("a1", "b2", "c2");

    store.sync(3); // uploaded, never committed
    assertThat(value(store, c)).isEqualTo("c3");
    store.reset(store.committedVersion());
    assertThat(value(store, c)).isEqualTo("c2");
    assertThat(value(store, a)).isEqualTo("a1");
  }

  @Test
  void readsSeeIngestedThenCommittedData() {
    byte[] a = key(1, 0, "a");
    byte[] b = key(1, 0, "b");
    byte[] c = key(1, 0, "c");
    store.ingest(1, batch(a, "a1", b, "b1", c, ""));
    assertThat(value(store, a)).isEqualTo("a1");
    assertThat(value(store, c)).isEqualTo("");
    assertThat(store.uncommittedBytes()).isPositive();

    checkpoint(store, 1);
    assertThat(store.uncommittedBatchCount()).isZero();
    assertThat(store.uncommittedBytes()).isZero();
    assertThat(store.committedSstCount()).isEqualTo(1);
    assertThat(store.committedEpoch()).isEqualTo(1);
    assertThat(value(store, a)).isEqualTo("a1");
    assertThat(value(store, c)).isEqualTo("");

    store.ingest(2, batch(a, null, b, "b2"));
    assertThat(value(store, a)).isNull();
    assertThat(value(store, b)).isEqualTo("b2");
    assertThat(scanValues(store.scan(key(1, 0, ""), null))).containsExactly("b2", "");

    checkpoint(store, 2);
    assertThat(store.committedSstCount()).isEqualTo(2);
    assertThat(value(store, a)).isNull();
    assertThat(scanValues(store.scan(key(1, 0, ""), null))).containsExactly("b2", "");
    assertThat(scanValues(store.scanReverse(key(1, 0, ""), null))).containsExactly("", "b2");
  }

  @Test
  void newerEpochWinsAndLastSkipsTombstones() {
    byte[] k1 = key(3, 1, 1);
    byte[] k2 = key(3, 1, 2);
    byte[] k3 = key(3, 1, 3);
    store.ingest(1, batch(k1, "1", k2, "2", k3, "3"));
    checkpoint(store, 1);
    store.ingest(2, batch(k3, null));
    store.ingest(3, batch(k2, "2b"));
    // the later ingest of the same epoch wins
    store.ingest(3, batch(k2, "2c"));
    byte[] prefixEnd = key(3, 2, 0);
    assertThat(store.last(key(3, 1, 0), prefixEnd)).hasValueSatisfying(
        kv -> assertThat(kv).isEqualTo(new KeyValue(k2, bytes("2c"))));
    List<SstInfo> ssts = store.sync(3);
    assertThat(ssts).hasSize(1);
    assertThat(ssts.get(0).getMinEpoch()).isEqualTo(2);
    assertThat(ssts.get(0).getMaxEpoch()).isEqualTo(3);
    assertThat(ssts.get(0).getTombstoneCount()).isEqualTo(1);
    StoreVersion cur = store.committedVersion();
    store.commit(VersionDeltas.apply(cur, VersionDeltas.checkpoint(cur, 3, ssts)));
    assertThat(store.last(key(3, 1, 0), prefixEnd)).hasValueSatisfying(
        kv -> assertThat(kv).isEqualTo(new KeyValue(k2, bytes("2c"))));
    assertThat(store.last(key(3, 1, 3), prefixEnd)).isEmpty();
  }

  @Test
  void syncTakesOnlyEpochsUpToItsArgument() {
    byte[] k = key(1, 0, "k");
    byte[] j = key(1, 0, "j");
    store.ingest(1, batch(k, "1"));
    store.ingest(2, batch(j, "2"));
    List<SstInfo> first = store.sync(1);
    assertThat(first).hasSize(1);
    assertThat(first.get(0).getKeyCount()).isEqualTo(1);
    assertThat(store.sync(1)).isEmpty(); // nothing new
    List<SstInfo> second = store.sync(2);
    assertThat(second.get(0).getKeyCount()).isEqualTo(1);
    assertThat(store.sync(2)).isEmpty();
  }

  @Test
  void lateOrCommittedEpochsAreRefused() {
    store.ingest(1, batch(key(1, 0, "a"), "x"));
    checkpoint(store, 1);
    assertThatThrownBy(() -> store.ingest(1, batch(key(1, 0, "b"), "y")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("epoch 1")
        .hasMessageContaining("committed");
    store.ingest(2, batch(key(1, 0, "b"), "y"));
    store.sync(3);
    assertThatThrownBy(() -> store.ingest(3, batch(key(1, 0, "c"), "z")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("ingest of epoch 3")
        .hasMessageContaining("sync(3)");
    assertThatThrownBy(() -> store.ingest(0, SortedWriteBatch.empty()))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("not positive");
  }

  @Test
  void failedUploadKeepsBatchesForRetry() {
    byte[] k = key(1, 0, "k");
    store.ingest(1, batch(k, "v"));
    objects.failWhen((op, path) -> op.equals("put"));
    assertThatThrownBy(() -> store.sync(1))
        .isInstanceOf(ObjectStoreException.class).hasMessageContaining("state/");
    assertThat(value(store, k)).isEqualTo("v");
    objects.failWhen(null);
    StoreVersion v = checkpoint(store, 1);
    assertThat(VersionDeltas.sstCount(v)).isEqualTo(1);
    assertThat(value(store, k)).isEqualTo("v");
  }

  @Test
  void syncSplitsLargeOutputsIntoSortedFiles() {
    StateStore small = newStore(new StoreOptions(2000, 256, 10, 16));
    WriteBuffer b = new WriteBuffer();
    for (int i = 0; i < 1000; i++) {
      b.put(key(2, i % 4, i), bytes("value-" + i));
    }
    small.ingest(1, b.freeze());
    List<SstInfo> ssts = small.sync(1);
    assertThat(ssts).hasSizeGreaterThan(5);
    for (int i = 1; i < ssts.size(); i++) {
      assertThat(StoreKeys.compare(ssts.get(i - 1).getLargestKey(), ssts.get(i).getSmallestKey()))
          .isNegative();
    }
    assertThat(ssts.stream().mapToLong(SstInfo::getKeyCount).sum()).isEqualTo(1000);
    assertThat(ssts).allSatisfy(s -> assertThat(s.getObjectPath()).isEqualTo(
        "state/" + s.getId() + ".sst"));
    StoreVersion cur = small.committedVersion();
    small.commit(VersionDeltas.apply(cur, VersionDeltas.checkpoint(cur, 1, ssts)));
    for (int i = 0; i < 1000; i++) {
      assertThat(value(small, key(2, i % 4, i))).isEqualTo("value-" + i);
    }
  }

  @Test
  void olderOrEqualVersionsAreIgnored() {
    store.ingest(1, batch(key(1, 0, "a"), "x"));
    StoreVersion v1 = checkpoint(store, 1);
    store.ingest(2, batch(key(1, 0, "b"), "y"));
    store.commit(v1);
    store.commit(VersionDeltas.empty());
    assertThat(store.committedVersion()).isEqualTo(v1);
    assertThat(store.uncommittedBatchCount()).isEqualTo(1);
  }

  @Test
  void resetDropsUncommittedData() {
    byte[] a = key(1, 0, "a");
    store.ingest(1, batch(a, "1"));
    StoreVersion v1 = checkpoint(store, 1);
    store.ingest(2, batch(a, "2"));
    store.sync(2);
    store.ingest(3, batch(key(1, 0, "b"), "3"));
    store.reset(v1);
    assertThat(value(store, a)).isEqualTo("1");
    assertThat(value(store, key(1, 0, "b"))).isNull();
    assertThat(store.uncommittedBatchCount()).isZero();
    // the epochs after the committed one can be replayed
    store.ingest(2, batch(a, "2again"));
    checkpoint(store, 2);
    assertThat(value(store, a)).isEqualTo("2again");
  }

  @Test
  void waitCommittedUnblocksOnceTheEpochCommits() throws Exception {
    store.waitCommitted(0); // already committed: returns at once
    ExecutorService pool = Executors.newSingleThreadExecutor();
    try {
      Future<?> waiter = pool.submit(() -> {
        store.waitCommitted(3);
        return null;
      });
      store.ingest(1, batch(key(1, 0, "a"), "x"));
      checkpoint(store, 2);
      assertThat(waiter.isDone()).isFalse(); // epoch 2 < 3: cannot have returned
      checkpoint(store, 3);
      waiter.get(60, TimeUnit.SECONDS);
      assertThat(store.committedEpoch()).isEqualTo(3);
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void waitCommittedIsInterruptible() throws Exception {
    CompletableFuture<Throwable> outcome = new CompletableFuture<>();
    Thread t = new Thread(() -> {
      try {
        store.waitCommitted(100);
        outcome.complete(null);
      } catch (Throwable e) {
        outcome.complete(e);
      }
    });
    t.start();
    t.interrupt();
    assertThat(outcome.get(60, TimeUnit.SECONDS)).isInstanceOf(InterruptedException.class);
  }

  @Test
  void openScansPinTheirVersion() {
    store.ingest(1, batch(key(1, 0, "a"), "1", key(1, 0, "b"), "2"));
    StoreVersion v1 = checkpoint(store, 1);
    CloseableIterator<KeyValue> it = store.scan(new byte[0], null);
    CloseableIterator<KeyValue> it2 = store.scan(new byte[0], null);
    store.ingest(2, batch(key(1, 0, "a"), "changed"));
    StoreVersion v2 = checkpoint(store, 2);
    assertThat(store.minPinnedVersionId()).isEqualTo(v1.getId());
    assertThat(store.pinnedVersions()).containsEntry(v1.getId(), 2);
    // the open scan still reads its own snapshot
    assertThat(new String(it.next().value())).isEqualTo("1");
    it.close();
    it.close();
    assertThat(store.minPinnedVersionId()).isEqualTo(v1.getId());
    while (it2.hasNext()) {
      it2.next();
    }
    // exhausted: released without close
    assertThat(store.minPinnedVersionId()).isEqualTo(v2.getId());
    assertThat(store.pinnedVersions()).isEmpty();
  }

  @Test
  void readersNeverMissDataDuringCommits() throws Exception {
    byte[] stable = key(1, 0, "stable");
    store.ingest(1, batch(stable, "s"));
    AtomicBoolean done = new AtomicBoolean();
    ExecutorService pool = Executors.newFixedThreadPool(3);
    try {
      List<Future<Long>> readers = new ArrayList<>();
      for (int r = 0; r < 3; r++) {
        readers.add(pool.submit(() -> {
          long reads = 0;
          while (!done.get() || reads == 0) {
            assertThat(store.get(stable)).isPresent();
            try (CloseableIterator<KeyValue> it = store.scan(key(1, 0, ""), key(1, 1, ""))) {
              assertThat(it.hasNext()).isTrue();
            }
            reads++;
          }
          return reads;
        }));
      }
      for (long epoch = 1; epoch <= 150; epoch++) {
        if (epoch > 1) {
          store.ingest(epoch, batch(key(2, 0, epoch), "x"));
        }
        checkpoint(store, epoch);
      }
      done.set(true);
      for (Future<Long> f : readers) {
        assertThat(f.get(120, TimeUnit.SECONDS)).isPositive();
      }
    } finally {
      done.set(true);
      pool.shutdownNow();
    }
    assertThat(value(store, stable)).isEqualTo("s");
  }
}
