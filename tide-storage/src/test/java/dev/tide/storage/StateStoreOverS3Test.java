package dev.tide.storage;

import static dev.tide.storage.TestKeys.bytes;
import static dev.tide.storage.TestKeys.key;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tide.common.store.StoreKeys;
import dev.tide.common.store.VersionDeltas;
import dev.tide.proto.store.SstInfo;
import dev.tide.proto.store.StoreVersion;
import dev.tide.storage.compact.Compactor;
import dev.tide.storage.object.S3ObjectStore;
import dev.tide.storage.object.S3TestServer;
import dev.tide.storage.sst.BlockCache;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The state store with its SSTs in S3 (an in-JVM s3proxy): batches of several epochs are synced,
 * committed through {@link VersionDeltas}, compacted, and read back, also by a second store with a
 * cold block cache, against a {@link TreeMap} model.
 */
class StateStoreOverS3Test {
  static S3TestServer server;

  @BeforeAll
  static void startServer() throws Exception {
    server = S3TestServer.shared();
  }

  /**
   * Small files and blocks, so a checkpoint writes several SSTs of several blocks (each block read
   * is one ranged GET).
   */
  private static final StoreOptions SMALL = new StoreOptions(24 << 10, 4096, 10, 64);

  @Test
  void writesSyncCommitCompactAndReadBack() {
    String bucket = server.createBucket();
    AtomicLong ids = new AtomicLong();
    TreeMap<byte[], byte[]> model = new TreeMap<>(StoreKeys::compare);
    Random random = new Random(11);

    try (S3ObjectStore objects = S3ObjectStore.open(server.config(bucket)
        .withKeyPrefix("cluster-1"))) {
      StateStore store = new StateStore(objects, new BlockCache(1 << 20), "state",
          ids::incrementAndGet, SMALL);
      for (long epoch = 1; epoch <= 3; epoch++) {
        for (int table = 1; table <= 2; table++) {
          WriteBuffer buffer = new WriteBuffer();
          for (int i = 0; i < 500; i++) {
            byte[] k = key(table, i % 16, random.nextInt(1000));
            if (random.nextInt(5) == 0) {
              buffer.delete(k);
              model.remove(k);
            } else {
              byte[] v = bytes("t" + table + "-e" + epoch + "-" + i + "-" + "x".repeat(i % 40));
              buffer.put(k, v);
              model.put(k, v);
            }
          }
          store.ingest(epoch, buffer.freeze());
        }
        List<SstInfo> ssts = store.sync(epoch);
        assertThat(ssts).hasSizeGreaterThan(1);
        for (SstInfo sst : ssts) {
          assertThat(sst.getObjectPath()).startsWith("state/");
          assertThat(objects.exists(sst.getObjectPath())).isTrue();
        }
        StoreVersion cur = store.committedVersion();
        store.commit(VersionDeltas.apply(cur, VersionDeltas.checkpoint(cur, epoch, ssts)));
        assertThat(store.uncommittedBatchCount()).isZero();
        assertSameAs(model, store);
      }

      // the SSTs are keys under the store's prefix in the bucket
      StoreVersion checkpointed = store.committedVersion();
      List<String> listed = objects.list("state/");
      assertThat(listed).hasSize(VersionDeltas.sstCount(checkpointed));
      assertThat(server.admin().listObjectsV2(b -> b.bucket(bucket).prefix("cluster-1/state/"))
          .keyCount()).isEqualTo(listed.size());

      // compact all L0 into one level; the outputs go to S3 too
      List<SstInfo> l0 = checkpointed.getL0().getSstsList();
      List<SstInfo> outputs = Compactor.compact(objects, new BlockCache(1 << 20), l0, true,
          SMALL.targetSstBytes(), ids::incrementAndGet, "state");
      List<Long> removed = l0.stream().map(SstInfo::getId).toList();
      StoreVersion compacted = VersionDeltas.apply(checkpointed,
          VersionDeltas.compaction(checkpointed, removed, 1, outputs));
      store.commit(compacted);
      assertThat(store.committedVersion().getL0().getSstsCount()).isZero();
      assertSameAs(model, store);

      // a second node with a cold cache reads the committed version from S3 alone
      StateStore fresh = new StateStore(objects, new BlockCache(1 << 20), "state",
          ids::incrementAndGet, SMALL);
      fresh.commit(compacted);
      assertThat(fresh.committedEpoch()).isEqualTo(3);
      assertSameAs(model, fresh);
    }
  }

  private static void assertSameAs(TreeMap<byte[], byte[]> model, StateStore store) {
    List<String> expected = new ArrayList<>();
    for (Map.Entry<byte[], byte[]> e : model.entrySet()) {
      expected.add(StoreKeys.toHex(e.getKey()) + "=" + new String(e.getValue()));
    }
    List<String> scanned = new ArrayList<>();
    try (CloseableIterator<KeyValue> it = store.scan(new byte[0], null)) {
      while (it.hasNext()) {
        KeyValue kv = it.next();
        scanned.add(StoreKeys.toHex(kv.key()) + "=" + new String(kv.value()));
      }
    }
    assertThat(scanned).containsExactlyElementsOf(expected);
    // point reads, of present and of deleted or never-written keys
    Random random = new Random(5);
    for (int i = 0; i < 100; i++) {
      byte[] k = key(1 + random.nextInt(2), random.nextInt(16), random.nextInt(1100));
      byte[] want = model.get(k);
      assertThat(store.get(k).map(v -> Arrays.equals(v, want)).orElse(want == null))
          .as("key %s", StoreKeys.toHex(k)).isTrue();
    }
  }
}
