package dev.tide.stream.state;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tide.common.hash.VnodeBitmap;
import dev.tide.common.hash.VnodeHasher;
import dev.tide.proto.plan.DataTypeProto;
import dev.tide.proto.plan.FieldProto;
import dev.tide.proto.plan.TableCatalog;
import dev.tide.storage.StateStore;
import dev.tide.storage.sst.BlockCache;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicLong;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;

/**
 * A state table (pk = (k BIGINT, s VARCHAR), dist key = k) against a sorted-map model over random
 * puts, deletes, barriers, point reads and prefix reads; the memtable and the store must merge to
 * the model at every step.
 */
class StateTablePropertyTest {
  private static final TableCatalog TABLE = TableCatalog.newBuilder().setTableId(42).setName("t")
      .addColumns(FieldProto.newBuilder().setName("k").setType(DataTypeProto.BIGINT))
      .addColumns(FieldProto.newBuilder().setName("s").setType(DataTypeProto.VARCHAR))
      .addColumns(FieldProto.newBuilder().setName("v").setType(DataTypeProto.DOUBLE))
      .addPk(0).addPk(1).addDistKey(0).setVisibleColumns(3).build();
  private static final String[] STRINGS = {"", "a", "a\0", "ab", "b", "é", "\uD83D\uDE00"};

  /** Model order of pks: k numerically, then s by code point. */
  private static final Comparator<List<Object>> PK_ORDER = Comparator
      .<List<Object>>comparingLong(l -> (Long) l.get(0))
      .thenComparing(l -> (String) l.get(1), (a, b) -> Arrays.compare(a.codePoints().toArray(), b.codePoints().toArray()));

  private static StateStore store() {
    AtomicLong ids = new AtomicLong();
    return new StateStore(new MemoryObjectStore(), new BlockCache(1 << 20), "state", ids::incrementAndGet);
  }

  /**
   * Ownership of a key given as longs (a cache's integer key) agrees with that of its boxed values,
   * for INT and BIGINT distribution keys; a key whose distribution column is no integer is refused.
   */
  @Property(tries = 100)
  void ownershipOfLongKeysAgreesWithBoxedKeys(@ForAll long seed) {
    Random rnd = new Random(seed);
    java.util.BitSet bits = new java.util.BitSet(256);
    for (int v = 0; v < 256; v++) {
      bits.set(v, rnd.nextBoolean());
    }
    VnodeBitmap owned = VnodeBitmap.ofBits(256, bits);
    TableCatalog ints = TableCatalog.newBuilder().setTableId(43).setName("i")
        .addColumns(FieldProto.newBuilder().setName("a").setType(DataTypeProto.BIGINT))
        .addColumns(FieldProto.newBuilder().setName("b").setType(DataTypeProto.INT))
        .addPk(0).addPk(1).addDistKey(1).addDistKey(0).setVisibleColumns(2).build();
    StateTable t = new StateTable(ints, store(), owned, 256);
    for (int i = 0; i < 200; i++) {
      long a = rnd.nextInt(3) == 0 ? rnd.nextLong() : rnd.nextInt(1000) - 500;
      int b = rnd.nextInt(3) == 0 ? rnd.nextInt() : rnd.nextInt(100);
      assertThat(t.ownsIntegers(new long[] {a, b})).as("seed " + seed + " key " + a + ", " + b).isEqualTo(t.owns(new Object[] {a, b}));
    }
    StateTable strings = new StateTable(TABLE, store(), owned, 256);
    assertThat(strings.ownsIntegers(new long[] {5})).isEqualTo(strings.owns(new Object[] {5L}));
    assertThatThrownBy(() -> strings.ownsIntegers(new long[0]))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("does not cover");
    TableCatalog byString = TABLE.toBuilder().clearDistKey().addDistKey(1).build();
    assertThatThrownBy(() -> new StateTable(byString, store(), owned, 256).ownsIntegers(new long[] {1, 2}))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("VARCHAR, not an integer");
  }

  @Property(tries = 200)
  void readsMergeMemtableOverStoreLikeTheModel(@ForAll long seed) {
    Random rnd = new Random(seed);
    StateTable t = new StateTable(TABLE, store(), VnodeBitmap.full(256), 256);
    TreeMap<List<Object>, Object[]> model = new TreeMap<>(PK_ORDER);
    run(t, model, rnd, seed, 4, new long[] {1});
  }

  /**
   * A table with the key filter over a store that already holds rows of some vnodes (written by an
   * earlier owner, with or without the filter): reads still match the model.
   */
  @Property(tries = 200)
  void keyFilterSkipsOnlyKeysThatDoNotExist(@ForAll long seed) {
    Random rnd = new Random(seed);
    StateStore store = store();
    TreeMap<List<Object>, Object[]> model = new TreeMap<>(PK_ORDER);
    long[] epoch = {1};
    StateTable first = new StateTable(TABLE, store, VnodeBitmap.full(256), 256);
    if (rnd.nextBoolean()) {
      first.filterKeys(rnd.nextInt(3));
    }
    run(first, model, rnd, seed, 3, epoch);
    first.commit(epoch[0]++);
    StateTable second = new StateTable(TABLE, store, VnodeBitmap.full(256), 256);
    second.filterKeys(rnd.nextInt(3));
    run(second, model, rnd, seed, 8, epoch);
  }

  @Example
  void keyFilterChecksARegainedVnodeAgain() {
    StateStore store = store();
    int vnode = new VnodeHasher().vnode(new Object[] {5L}, 256);
    VnodeBitmap all = VnodeBitmap.full(256);
    VnodeBitmap others = all.andNot(VnodeBitmap.of(256, vnode));
    StateTable t = new StateTable(TABLE, store, all, 256);
    t.filterKeys(1);
    assertThat(t.get(new Object[] {5L, "a"})).isNull(); // vnode checked: empty
    t.updateVnodes(others);
    StateTable owner = new StateTable(TABLE, store, VnodeBitmap.of(256, vnode), 256);
    owner.filterKeys(1);
    owner.put(new Object[] {5L, "a", 1.0});
    owner.commit(1);
    t.updateVnodes(all);
    assertThat(t.get(new Object[] {5L, "a"})).containsExactly(5L, "a", 1.0);
    assertThat(t.scanPrefix(new Object[] {5L})).hasSize(1);
  }

  /** Random writes, barriers and reads of keys {@code k in [-1, keys - 1)} on {@code t}, checked against {@code model}. */
  private static void run(StateTable t, TreeMap<List<Object>, Object[]> model, Random rnd, long seed, int keys, long[] epochs) {
    long epoch = epochs[0];
    for (int step = 0; step < 200; step++) {
      long k = rnd.nextInt(keys) - 1;
      String s = STRINGS[rnd.nextInt(STRINGS.length)];
      List<Object> pk = List.of(k, s);
      String where = "seed " + seed + " step " + step;
      switch (rnd.nextInt(7)) {
        case 0, 1 -> {
          Object[] row = {k, s, rnd.nextInt(5) == 0 ? null : rnd.nextDouble()};
          t.put(row);
          model.put(pk, row);
        }
        case 2 -> {
          t.deleteByPk(new Object[] {k, s});
          model.remove(pk);
        }
        case 3 -> t.commit(epoch++);
        case 4 -> assertThat(t.get(new Object[] {k, s})).as(where).isEqualTo(model.get(pk));
        default -> {
          List<Object[]> expected = new ArrayList<>();
          for (Map.Entry<List<Object>, Object[]> e : model.entrySet()) {
            if (e.getKey().get(0).equals(k)) {
              expected.add(e.getValue());
            }
          }
          assertThat(t.scanPrefix(new Object[] {k})).as(where).containsExactlyElementsOf(expected);
          assertThat(t.firstInPrefix(new Object[] {k})).as(where).isEqualTo(expected.isEmpty() ? null : expected.get(0));
          assertThat(t.lastInPrefix(new Object[] {k})).as(where).isEqualTo(expected.isEmpty() ? null : expected.get(expected.size() - 1));
        }
      }
    }
    epochs[0] = epoch;
  }

  @Example
  void writesOutsideTheOwnedVnodesAreRefused() {
    int vnode = new VnodeHasher().vnode(new Object[] {5L}, 256);
    VnodeBitmap others = VnodeBitmap.full(256).andNot(VnodeBitmap.of(256, vnode));
    StateTable t = new StateTable(TABLE, store(), others, 256);
    assertThatThrownBy(() -> t.put(new Object[] {5L, "a", 1.0}))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("table 42").hasMessageContaining("vnode " + vnode).hasMessageContaining("does not own");
  }

  @Example
  void vnodesChangeOnlyWithoutUncommittedWrites() {
    StateTable t = new StateTable(TABLE, store(), VnodeBitmap.full(256), 256);
    t.put(new Object[] {1L, "a", 1.0});
    assertThatThrownBy(() -> t.updateVnodes(VnodeBitmap.empty(256))).hasMessageContaining("uncommitted writes");
    t.commit(1);
    t.updateVnodes(VnodeBitmap.of(256, 3));
    assertThat(t.vnodes()).isEqualTo(VnodeBitmap.of(256, 3));
  }

  @Example
  void distKeyOutsideThePkIsRefused() {
    TableCatalog bad = TABLE.toBuilder().clearDistKey().addDistKey(2).build();
    assertThatThrownBy(() -> new StateTable(bad, store(), VnodeBitmap.full(256), 256))
        .hasMessageContaining("dist key column 2 is not in the pk [0, 1]");
  }
}
