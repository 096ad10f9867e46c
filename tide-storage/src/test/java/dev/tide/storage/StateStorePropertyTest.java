package dev.tide.storage;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tide.common.store.StoreKeys;
import dev.tide.common.store.VersionDeltas;
import dev.tide.proto.store.Level;
import dev.tide.proto.store.SstInfo;
import dev.tide.proto.store.StoreVersion;
import dev.tide.storage.compact.Compactor;
import dev.tide.storage.object.InMemoryObjectStore;
import dev.tide.storage.sst.BlockCache;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
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
import net.jqwik.api.RandomDistribution;
import net.jqwik.api.Tuple;
import net.jqwik.api.statistics.Statistics;

/**
 * The state store against a {@link TreeMap} model, over random sequences of writes, barriers,
 * checkpoints (sync, then a delayed commit through {@link VersionDeltas#apply} as meta would),
 * compactions, recoveries and reopenings, with point reads and range scans in both directions.
 *
 * <p>Model: {@code visible} is what reads must return (committed data plus every ingested batch);
 * {@code committed} is the data of the installed version. A reopen or reset loses every
 * uncommitted write, so the model rolls back to {@code committed}.
 */
class StateStorePropertyTest {
  private static final int ACTORS = 2;
  private static final StoreOptions OPTIONS = new StoreOptions(300, 64, 10, 4);
  private static final String PREFIX = "state";

  // ------------------------------------------------------------------ operations

  sealed interface Op permits Put, Delete, Barrier, Checkpoint, Commit, CompactL0, CompactL1,
      Reopen, Reset, Get, Scan {}

  record Put(byte[] key, byte[] value) implements Op {
    @Override
    public String toString() {
      return "Put(" + StoreKeys.toHex(key) + ", " + StoreKeys.toHex(value) + ")";
    }
  }

  record Delete(byte[] key) implements Op {
    @Override
    public String toString() {
      return "Delete(" + StoreKeys.toHex(key) + ")";
    }
  }

  /** Every actor hands its buffer over; the epoch advances. */
  record Barrier() implements Op {}

  /** A barrier, then sync of the sealed epoch; meta builds the next version (not yet committed). */
  record Checkpoint() implements Op {}

  /** Meta commits the oldest pending checkpoint, or jumps to the newest. */
  record Commit(boolean newest) implements Op {}

  /** Compacts the {@code count} oldest L0 SSTs with the overlapping L1 SSTs into L1. */
  record CompactL0(int count) implements Op {}

  /** Compacts all of L1 and L2 into L2. */
  record CompactL1() implements Op {}

  /** A new store over the same object store, installed with the last committed version. */
  record Reopen() implements Op {}

  /** Recovery of the same store to its committed version. */
  record Reset() implements Op {}

  record Get(byte[] key) implements Op {
    @Override
    public String toString() {
      return "Get(" + StoreKeys.toHex(key) + ")";
    }
  }

  record Scan(byte[] from, byte[] to) implements Op {
    @Override
    public String toString() {
      return "Scan(" + StoreKeys.toHex(from) + ", " + StoreKeys.toHex(to) + ")";
    }
  }

  // ------------------------------------------------------------------ generators

  /** Mostly {@code table (1|2) | vnode (0|1) | pk of 0..2 bytes}; sometimes a 0..3-byte key. */
  private static Arbitrary<byte[]> keys() {
    Arbitrary<Byte> pkByte = Arbitraries.of((byte) 0x00, (byte) 0x7f, (byte) 0x80, (byte) 0xff);
    Arbitrary<byte[]> full = Combinators.combine(
        Arbitraries.of(1, 2), Arbitraries.of(0, 1), pkByte.list().ofMaxSize(2))
        .as((table, vnode, pk) -> {
          ByteBuffer b = ByteBuffer.allocate(6 + pk.size()).putInt(table).putShort((short) (int) vnode);
          pk.forEach(b::put);
          return b.array();
        });
    Arbitrary<byte[]> shortKey = Arbitraries.of((byte) 0x00, (byte) 0x01, (byte) 0xff)
        .list().ofMaxSize(3)
        .map(l -> {
          byte[] k = new byte[l.size()];
          for (int i = 0; i < k.length; i++) {
            k[i] = l.get(i);
          }
          return k;
        });
    return Arbitraries.frequencyOf(Tuple.of(9, full), Tuple.of(1, shortKey));
  }

  private static Arbitrary<byte[]> values() {
    return Arbitraries.bytes().array(byte[].class).ofMaxSize(3);
  }

  @Provide
  Arbitrary<List<Op>> ops() {
    Arbitrary<Op> put = Combinators.combine(keys(), values()).as(Put::new);
    Arbitrary<Op> delete = keys().map(Delete::new);
    Arbitrary<Op> get = keys().map(Get::new);
    Arbitrary<Op> scan = Combinators.combine(
        Arbitraries.frequencyOf(Tuple.of(1, Arbitraries.just(new byte[0])), Tuple.of(4, keys())),
        Arbitraries.frequencyOf(Tuple.of(1, Arbitraries.<byte[]>just(null)), Tuple.of(4, keys())))
        .as(Scan::new);
    Arbitrary<Op> op = Arbitraries.frequencyOf(
        Tuple.of(30, put),
        Tuple.of(10, delete),
        Tuple.of(6, Arbitraries.just(new Barrier())),
        Tuple.of(7, Arbitraries.just(new Checkpoint())),
        Tuple.of(7, Arbitraries.of(true, false).map(Commit::new)),
        Tuple.of(3, Arbitraries.integers().between(1, 4).map(CompactL0::new)),
        Tuple.of(2, Arbitraries.just(new CompactL1())),
        Tuple.of(2, Arbitraries.just(new Reopen())),
        Tuple.of(1, Arbitraries.just(new Reset())),
        Tuple.of(10, get),
        Tuple.of(6, scan));
    return op.list().ofMinSize(10).ofMaxSize(200)
        .withSizeDistribution(RandomDistribution.uniform());
  }

  // ------------------------------------------------------------------ the property

  @Property(tries = 300, edgeCases = EdgeCasesMode.NONE)
  void behavesLikeASortedMap(@ForAll("ops") List<Op> ops) {
    new Run().execute(ops);
  }

  /** One run: the store under test, the meta stand-in and the model. */
  private static final class Run {
    final InMemoryObjectStore objects = new InMemoryObjectStore();
    final AtomicLong ids = new AtomicLong();
    StateStore store = newStore();
    final WriteBuffer[] buffers = new WriteBuffer[ACTORS];
    long epoch = 1; // the epoch being written
    int maxL0;
    int compactions;
    boolean reachedL2;

    // meta: the newest version it built, and checkpoints awaiting commit
    StoreVersion metaVersion = VersionDeltas.empty();
    final Deque<Map.Entry<StoreVersion, TreeMap<byte[], byte[]>>> pending = new ArrayDeque<>();

    // model
    TreeMap<byte[], byte[]> visible = newMap();
    TreeMap<byte[], byte[]> committed = newMap();
    final List<TreeMap<byte[], Optional<byte[]>>> buffered = new ArrayList<>();

    Run() {
      for (int a = 0; a < ACTORS; a++) {
        buffers[a] = new WriteBuffer();
        buffered.add(newMap());
      }
    }

    static <V> TreeMap<byte[], V> newMap() {
      return new TreeMap<>(Arrays::compareUnsigned);
    }

    StateStore newStore() {
      return new StateStore(objects, new BlockCache(4096), PREFIX, ids::incrementAndGet, OPTIONS);
    }

    static int actorOf(byte[] key) {
      return key.length >= 4 ? key[3] % ACTORS : 0;
    }

    void execute(List<Op> ops) {
      for (Op op : ops) {
        apply(op);
        maxL0 = Math.max(maxL0, store.committedVersion().getL0().getSstsCount());
        reachedL2 |= !level(store.committedVersion(), 2).isEmpty();
        assertThat(store.committedSstCount())
            .isEqualTo(VersionDeltas.sstCount(store.committedVersion()));
      }
      Statistics.label("ops").collect(ops.size() < 50 ? "<50" : ops.size() < 100 ? "<100" : "100+");
      Statistics.label("max L0 SSTs").collect(bucket(maxL0));
      Statistics.label("compactions run").collect(bucket(compactions));
      Statistics.label("committed keys at end").collect(bucket(committed.size()));
      Statistics.label("reached L2").collect(reachedL2);
      checkEverything();
      assertThat(store.pinnedVersions()).isEmpty();
    }

    void apply(Op op) {
      if (op instanceof Put p) {
        buffers[actorOf(p.key())].put(p.key(), p.value());
        buffered.get(actorOf(p.key())).put(p.key(), Optional.of(p.value()));
      } else if (op instanceof Delete d) {
        buffers[actorOf(d.key())].delete(d.key());
        buffered.get(actorOf(d.key())).put(d.key(), Optional.empty());
      } else if (op instanceof Barrier) {
        barrier();
      } else if (op instanceof Checkpoint) {
        checkpoint();
      } else if (op instanceof Commit c) {
        commit(c.newest());
      } else if (op instanceof CompactL0 c) {
        compactL0(c.count());
      } else if (op instanceof CompactL1) {
        compactL1();
      } else if (op instanceof Reopen) {
        StoreVersion last = store.committedVersion();
        store = newStore();
        store.commit(last);
        rollBack(last);
      } else if (op instanceof Reset) {
        StoreVersion last = store.committedVersion();
        store.reset(last);
        rollBack(last);
      } else if (op instanceof Get g) {
        checkGet(g.key());
      } else if (op instanceof Scan s) {
        checkScan(s.from(), s.to());
      } else {
        throw new IllegalStateException("unknown op " + op);
      }
    }

    void barrier() {
      for (int a = 0; a < ACTORS; a++) {
        SortedWriteBatch batch = buffers[a].freeze();
        assertThat(batch.size()).isEqualTo(buffered.get(a).size());
        store.ingest(epoch, batch);
        for (Map.Entry<byte[], Optional<byte[]>> e : buffered.get(a).entrySet()) {
          if (e.getValue().isPresent()) {
            visible.put(e.getKey(), e.getValue().get());
          } else {
            visible.remove(e.getKey());
          }
        }
        buffered.get(a).clear();
      }
      epoch++;
    }

    void checkpoint() {
      barrier();
      long sealed = epoch - 1;
      List<SstInfo> ssts = store.sync(sealed);
      for (SstInfo sst : ssts) {
        assertThat(sst.getMaxEpoch()).isLessThanOrEqualTo(sealed);
        assertThat(sst.getMinEpoch()).isGreaterThan(metaVersion.getMaxCommittedEpoch());
      }
      metaVersion = VersionDeltas.apply(metaVersion,
          VersionDeltas.checkpoint(metaVersion, sealed, ssts));
      TreeMap<byte[], byte[]> snapshot = newMap();
      snapshot.putAll(visible);
      pending.add(Map.entry(metaVersion, snapshot));
    }

    void commit(boolean newest) {
      if (pending.isEmpty()) {
        return;
      }
      Map.Entry<StoreVersion, TreeMap<byte[], byte[]>> next = pending.poll();
      while (newest && !pending.isEmpty()) {
        next = pending.poll();
      }
      store.commit(next.getKey());
      committed = next.getValue();
      assertThat(store.committedVersion()).isEqualTo(next.getKey());
    }

    /** Compacts the oldest L0 SSTs with the overlapping L1 SSTs into L1, as meta would plan. */
    void compactL0(int count) {
      StoreVersion v = store.committedVersion();
      if (!pending.isEmpty() || v.getL0().getSstsCount() == 0) {
        return; // keep meta's chain simple: compact only a fully committed version
      }
      List<SstInfo> l0 = v.getL0().getSstsList();
      List<SstInfo> inputs = new ArrayList<>(l0.subList(Math.max(0, l0.size() - count), l0.size()));
      byte[] lo = null;
      byte[] hi = null;
      for (SstInfo s : inputs) {
        byte[] sm = s.getSmallestKey().toByteArray();
        byte[] la = s.getLargestKey().toByteArray();
        lo = lo == null || Arrays.compareUnsigned(sm, lo) < 0 ? sm : lo;
        hi = hi == null || Arrays.compareUnsigned(la, hi) > 0 ? la : hi;
      }
      for (SstInfo s : level(v, 1)) {
        if (Arrays.compareUnsigned(s.getSmallestKey().toByteArray(), hi) <= 0
            && Arrays.compareUnsigned(s.getLargestKey().toByteArray(), lo) >= 0) {
          inputs.add(s);
        }
      }
      boolean bottom = level(v, 2).isEmpty();
      runCompaction(v, inputs, bottom, 1);
    }

    void compactL1() {
      StoreVersion v = store.committedVersion();
      if (!pending.isEmpty() || level(v, 1).isEmpty()) {
        return;
      }
      List<SstInfo> inputs = new ArrayList<>(level(v, 1));
      inputs.addAll(level(v, 2));
      runCompaction(v, inputs, true, 2);
    }

    void runCompaction(StoreVersion v, List<SstInfo> inputsNewestFirst, boolean dropTombstones,
        int target) {
      List<SstInfo> outputs = Compactor.compact(objects, new BlockCache(4096), inputsNewestFirst,
          dropTombstones, 300, ids::incrementAndGet, PREFIX);
      List<Long> removed = inputsNewestFirst.stream().map(SstInfo::getId).toList();
      StoreVersion next = VersionDeltas.apply(v,
          VersionDeltas.compaction(v, removed, target, outputs));
      metaVersion = next;
      compactions++;
      store.commit(next);
      assertThat(store.committedVersion()).isEqualTo(next);
      if (dropTombstones) {
        for (SstInfo out : outputs) {
          assertThat(out.getTombstoneCount()).isZero();
        }
      }
    }

    static String bucket(int n) {
      return n == 0 ? "0" : n < 3 ? "1-2" : n < 10 ? "3-9" : "10+";
    }

    static List<SstInfo> level(StoreVersion v, int index) {
      if (v.getLevelsCount() < index) {
        return List.of();
      }
      Level level = v.getLevels(index - 1);
      return level.getSstsList();
    }

    /** Uncommitted work is lost: back to the committed data and version. */
    void rollBack(StoreVersion last) {
      assertThat(last.getMaxCommittedEpoch()).isLessThan(epoch);
      visible = newMap();
      visible.putAll(committed);
      pending.clear();
      metaVersion = last;
      for (int a = 0; a < ACTORS; a++) {
        buffers[a] = new WriteBuffer();
        buffered.get(a).clear();
      }
    }

    void checkGet(byte[] key) {
      Optional<byte[]> actual = store.get(key);
      byte[] expected = visible.get(key);
      if (expected == null) {
        assertThat(actual).as("get %s", StoreKeys.toHex(key)).isEmpty();
      } else {
        assertThat(actual).as("get %s", StoreKeys.toHex(key)).isPresent();
        assertThat(actual.get()).as("get %s", StoreKeys.toHex(key)).isEqualTo(expected);
      }
    }

    void checkScan(byte[] from, byte[] to) {
      NavigableMap<byte[], byte[]> range;
      if (to == null) {
        range = visible.tailMap(from, true);
      } else if (Arrays.compareUnsigned(from, to) >= 0) {
        range = newMap();
      } else {
        range = visible.subMap(from, true, to, false);
      }
      List<KeyValue> expected = new ArrayList<>();
      range.forEach((k, v) -> expected.add(new KeyValue(k, v)));
      String what = "[" + StoreKeys.toHex(from) + ", " + StoreKeys.toHex(to) + ")";
      assertThat(drain(store.scan(from, to))).as("scan %s", what).isEqualTo(expected);
      List<KeyValue> reversed = new ArrayList<>(expected);
      java.util.Collections.reverse(reversed);
      assertThat(drain(store.scanReverse(from, to))).as("reverse scan %s", what)
          .isEqualTo(reversed);
      assertThat(store.last(from, to)).as("last %s", what)
          .isEqualTo(reversed.isEmpty() ? Optional.empty() : Optional.of(reversed.get(0)));
    }

    static List<KeyValue> drain(CloseableIterator<KeyValue> it) {
      List<KeyValue> out = new ArrayList<>();
      try (it) {
        while (it.hasNext()) {
          out.add(it.next());
        }
      }
      return out;
    }

    void checkEverything() {
      checkScan(new byte[0], null);
      for (byte[] key : visible.keySet()) {
        checkGet(key);
      }
      for (byte[] key : committed.keySet()) {
        checkGet(key);
      }
      // and everything again after recovery to the committed version
      StoreVersion last = store.committedVersion();
      store = newStore();
      store.commit(last);
      rollBack(last);
      checkScan(new byte[0], null);
    }
  }
}
