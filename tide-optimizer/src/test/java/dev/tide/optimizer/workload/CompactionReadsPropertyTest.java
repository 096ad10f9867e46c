package dev.tide.optimizer.workload;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import dev.tide.common.config.Config;
import dev.tide.common.store.StoreKeys;
import dev.tide.common.store.VersionDeltas;
import dev.tide.optimizer.worker.CompactionRunner;
import dev.tide.proto.optimizer.CompactionTask;
import dev.tide.proto.store.SstInfo;
import dev.tide.proto.store.StoreVersion;
import dev.tide.storage.CloseableIterator;
import dev.tide.storage.KeyValue;
import dev.tide.storage.SortedWriteBatch;
import dev.tide.storage.StateStore;
import dev.tide.storage.StoreOptions;
import dev.tide.storage.object.LocalObjectStore;
import dev.tide.storage.sst.BlockCache;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicLong;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.EdgeCasesMode;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.statistics.Statistics;

/**
 * Reads stay correct while compaction runs: random sequences of writes, checkpoints, compactions
 * planned by {@link CompactionPlanner} on one version, run by {@link CompactionRunner} (real SST files
 * in a local-directory object store) and committed on a later version, deletion of obsolete SSTs by
 * the {@link ObsoleteSsts} rule with the store's pins, point reads, full scans, and scans held open
 * across commits and deletions — all against a {@link TreeMap} model.
 */
class CompactionReadsPropertyTest {
  private static final long[] TABLES = {1001, 1002, 1003};
  private static final Comparator<byte[]> KEYS = Arrays::compareUnsigned;

  sealed interface Op permits Put, Delete, Checkpoint, StartCompaction, CommitCompaction, CollectGarbage, Get, OpenScan,
      FinishScans {}

  record Put(int table, int vnode, int pk, int value) implements Op {}

  record Delete(int table, int vnode, int pk) implements Op {}

  record Checkpoint() implements Op {}

  record StartCompaction(int table) implements Op {}

  record CommitCompaction(int table) implements Op {}

  record CollectGarbage() implements Op {}

  record Get(int table, int vnode, int pk) implements Op {}

  record OpenScan() implements Op {}

  record FinishScans() implements Op {}

  @Provide
  Arbitrary<List<Op>> ops() {
    Arbitrary<Integer> table = Arbitraries.integers().between(0, TABLES.length - 1);
    Arbitrary<Integer> vnode = Arbitraries.integers().between(0, 15);
    Arbitrary<Integer> pk = Arbitraries.integers().between(0, 30);
    Arbitrary<Op> op = Arbitraries.frequencyOf(
        net.jqwik.api.Tuple.of(20, Combinators.combine(table, vnode, pk, Arbitraries.integers().between(0, 1000)).as(Put::new)),
        net.jqwik.api.Tuple.of(4, Combinators.combine(table, vnode, pk).as(Delete::new)),
        net.jqwik.api.Tuple.of(10, Arbitraries.just(new Checkpoint())),
        net.jqwik.api.Tuple.of(8, table.map(StartCompaction::new)),
        net.jqwik.api.Tuple.of(8, table.map(CommitCompaction::new)),
        net.jqwik.api.Tuple.of(6, Arbitraries.just(new CollectGarbage())),
        net.jqwik.api.Tuple.of(6, Combinators.combine(table, vnode, pk).as(Get::new)),
        net.jqwik.api.Tuple.of(2, Arbitraries.just(new OpenScan())),
        net.jqwik.api.Tuple.of(2, Arbitraries.just(new FinishScans())));
    return op.list().ofMinSize(40).ofMaxSize(200);
  }

  private record Pending(CompactionPlan plan, List<SstInfo> outputs) {}

  private record OpenedScan(CloseableIterator<KeyValue> it, List<Map.Entry<byte[], byte[]>> expected) {}

  @Property(tries = 60, edgeCases = EdgeCasesMode.NONE)
  void readsMatchTheModelWhileCompactionsCommitAndObsoleteSstsAreDeleted(@ForAll("ops") List<Op> ops) throws IOException {
    Path dir = Files.createTempDirectory("tide-compaction-prop");
    try {
      run(ops, new LocalObjectStore(dir));
    } finally {
      try (var walk = Files.walk(dir)) {
        walk.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
      }
    }
  }

  private void run(List<Op> ops, LocalObjectStore objects) {
    AtomicLong ids = new AtomicLong(1);
    // small files and tasks, so compactions have several inputs, tasks and outputs
    StateStore store = new StateStore(objects, new BlockCache(1 << 20), "state", ids::getAndIncrement,
        new StoreOptions(400, 64, 10, 64));
    WorkloadOptions options = WorkloadOptions.from(Config.defaults().with(WorkloadOptions.TASK_INPUT_BYTES, 300L)
        .with(WorkloadOptions.TARGET_FILE_BYTES, 400L));
    CompactionRunner runner = new CompactionRunner(objects, new BlockCache(1 << 20));
    ObsoleteSsts obsolete = new ObsoleteSsts(0);
    TreeMap<byte[], byte[]> model = new TreeMap<>(KEYS);
    Map<Integer, Pending> pending = new HashMap<>();
    List<OpenedScan> scans = new ArrayList<>();
    StoreVersion version = VersionDeltas.empty();
    long epoch = 1;
    long now = 0;
    int commits = 0;
    int deleted = 0;
    for (Op op : ops) {
      now++;
      if (op instanceof Put p) {
        byte[] k = key(p.table(), p.vnode(), p.pk());
        byte[] v = ByteString.copyFromUtf8("v" + p.value()).toByteArray();
        store.ingest(epoch, SortedWriteBatch.ofSorted(new byte[][] {k}, new byte[][] {v}));
        model.put(k, v);
      } else if (op instanceof Delete d) {
        byte[] k = key(d.table(), d.vnode(), d.pk());
        store.ingest(epoch, SortedWriteBatch.ofSorted(new byte[][] {k}, new byte[][] {null}));
        model.remove(k);
      } else if (op instanceof Checkpoint) {
        List<SstInfo> ssts = store.sync(epoch);
        assertThat(ssts).allMatch(s -> s.getTableIdsCount() == 1);
        version = VersionDeltas.apply(version, VersionDeltas.checkpoint(version, epoch, ssts));
        store.commit(version);
        epoch++;
      } else if (op instanceof StartCompaction s) {
        if (!pending.containsKey(s.table())) {
          CompactionPlan plan = CompactionPlanner.plan(version, TABLES[s.table()], options);
          if (!plan.isEmpty()) {
            List<SstInfo> outputs = new ArrayList<>();
            for (TaskSpec t : plan.tasks()) {
              outputs.addAll(runner.run(task(t), ids::getAndIncrement));
            }
            pending.put(s.table(), new Pending(plan, outputs));
          }
        }
      } else if (op instanceof CommitCompaction c) {
        Pending p = pending.remove(c.table());
        if (p != null) {
          List<Long> remove = p.plan().inputs().stream().map(SstInfo::getId).toList();
          version = VersionDeltas.apply(version, VersionDeltas.compaction(version, remove, 1, p.outputs()));
          store.commit(version);
          obsolete.dropped(p.plan().inputs(), version.getId());
          commits++;
        }
      } else if (op instanceof CollectGarbage) {
        for (SstInfo sst : obsolete.takeDeletable(store.minPinnedVersionId(), now)) {
          objects.delete(sst.getObjectPath());
          deleted++;
        }
      } else if (op instanceof Get g) {
        byte[] k = key(g.table(), g.vnode(), g.pk());
        Optional<byte[]> got = store.get(k);
        assertThat(got.map(ByteString::copyFrom)).as("get after %s", op).isEqualTo(Optional.ofNullable(model.get(k)).map(ByteString::copyFrom));
      } else if (op instanceof OpenScan) {
        CloseableIterator<KeyValue> it = store.scan(new byte[0], null);
        scans.add(new OpenedScan(it, new ArrayList<>(new TreeMap<>(model).entrySet())));
      } else if (op instanceof FinishScans) {
        finishScans(scans);
      }
      assertThat(entries(store)).as("full scan after %s", op).isEqualTo(render(model.entrySet()));
    }
    finishScans(scans);
    Statistics.label("compactions committed mid-run").collect(commits == 0 ? "0" : commits < 3 ? "1-2" : "3+");
    Statistics.label("obsolete SSTs deleted mid-run").collect(deleted == 0 ? "0" : "some");
    for (Pending p : pending.values()) {
      List<Long> remove = p.plan().inputs().stream().map(SstInfo::getId).toList();
      version = VersionDeltas.apply(version, VersionDeltas.compaction(version, remove, 1, p.outputs()));
      store.commit(version);
      obsolete.dropped(p.plan().inputs(), version.getId());
    }
    for (SstInfo sst : obsolete.takeDeletable(store.minPinnedVersionId(), now + 1)) {
      objects.delete(sst.getObjectPath());
    }
    assertThat(entries(store)).isEqualTo(render(model.entrySet()));
    // every object left is referenced by the version: obsolete inputs are all gone
    List<String> referenced = VersionDeltas.allSsts(version).stream().map(SstInfo::getObjectPath).sorted().toList();
    assertThat(objects.list("state/")).containsExactlyInAnyOrderElementsOf(referenced);
  }

  private static void finishScans(List<OpenedScan> scans) {
    for (OpenedScan s : scans) {
      List<String> got = new ArrayList<>();
      while (s.it().hasNext()) {
        KeyValue kv = s.it().next();
        got.add(StoreKeys.toHex(kv.key()) + "=" + ByteString.copyFrom(kv.value()).toStringUtf8());
      }
      s.it().close();
      assertThat(got).as("scan held open across commits").isEqualTo(render(s.expected()));
    }
    scans.clear();
  }

  private static List<String> entries(StateStore store) {
    List<String> out = new ArrayList<>();
    try (CloseableIterator<KeyValue> it = store.scan(new byte[0], null)) {
      while (it.hasNext()) {
        KeyValue kv = it.next();
        out.add(StoreKeys.toHex(kv.key()) + "=" + ByteString.copyFrom(kv.value()).toStringUtf8());
      }
    }
    return out;
  }

  private static List<String> render(java.util.Collection<Map.Entry<byte[], byte[]>> entries) {
    List<String> out = new ArrayList<>();
    for (Map.Entry<byte[], byte[]> e : entries) {
      out.add(StoreKeys.toHex(e.getKey()) + "=" + ByteString.copyFrom(e.getValue()).toStringUtf8());
    }
    return out;
  }

  private static CompactionTask task(TaskSpec t) {
    return CompactionTask.newBuilder().setTableId((int) t.tableId()).addAllInputs(t.inputs()).setFromKey(t.fromKey())
        .setToKey(t.toKey()).setDropTombstones(t.dropTombstones()).setTargetFileBytes(t.targetFileBytes())
        .setObjectPrefix("state").build();
  }

  private static byte[] key(int table, int vnode, int pk) {
    return CompactionPlanner.tablePrefix(TABLES[table])
        .concat(ByteString.copyFrom(new byte[] {(byte) (vnode >>> 8), (byte) vnode, (byte) pk, 7})).toByteArray();
  }
}
