package dev.tide.stream.actor;

import static dev.tide.stream.operator.Chunks.chunk;
import static dev.tide.stream.operator.Chunks.del;
import static dev.tide.stream.operator.Chunks.ins;
import static dev.tide.stream.operator.Chunks.ud;
import static dev.tide.stream.operator.Chunks.ui;
import static dev.tide.stream.operator.Chunks.visible;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tide.common.chunk.Op;
import dev.tide.common.chunk.StreamChunk;
import dev.tide.common.hash.VnodeHasher;
import dev.tide.common.types.DataType;
import dev.tide.stream.operator.Chunks;
import dev.tide.stream.operator.Chunks.Row;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;

/**
 * Dispatcher.Hash sends each visible row to the owner of its key's vnode; an update pair whose halves
 * have different owners becomes a delete at one and an insert at the other.
 */
class HashDispatcherTest {
  private static final DataType[] TYPES = {DataType.BIGINT, DataType.VARCHAR};
  private static final int VNODES = 16;

  private static Channel[] channels(int n) {
    Channel[] c = new Channel[n];
    for (int i = 0; i < n; i++) {
      c[i] = new Channel(64);
    }
    return c;
  }

  private static List<StreamChunk> drain(Channel c) {
    List<StreamChunk> out = new ArrayList<>();
    for (Object m = c.poll(); m != null; m = c.poll()) {
      out.add((StreamChunk) m);
    }
    return out;
  }

  private static int vnodeOf(long key) {
    return new VnodeHasher().vnode(new Object[] {key}, VNODES);
  }

  /** Two keys whose vnodes differ, and an owner array sending them to outputs 0 and 1. */
  private static long[] keysOnDifferentVnodes() {
    long a = 1;
    long b = 2;
    while (vnodeOf(b) == vnodeOf(a)) {
      b++;
    }
    return new long[] {a, b};
  }

  @Example
  void updatePairSplitAcrossOutputsBecomesDeleteAndInsert() throws InterruptedException {
    long[] k = keysOnDifferentVnodes();
    int[] owner = new int[VNODES];
    owner[vnodeOf(k[1])] = 1;
    Channel[] out = channels(2);
    new Dispatcher.Hash(out, new int[] {0}, owner).dispatch(chunk(TYPES, ud(k[0], "old"), ui(k[1], "new"), ins(k[0], "x")));
    assertThat(drain(out[0])).singleElement().satisfies(c ->
        assertThat(visible(c)).usingRecursiveFieldByFieldElementComparator().containsExactly(del(k[0], "old"), ins(k[0], "x")));
    assertThat(drain(out[1])).singleElement().satisfies(c ->
        assertThat(visible(c)).usingRecursiveFieldByFieldElementComparator().containsExactly(ins(k[1], "new")));
  }

  @Example
  void updatePairWithOneOwnerStaysAPair() throws InterruptedException {
    Channel[] out = channels(2);
    int[] owner = new int[VNODES];
    owner[vnodeOf(5L)] = 1;
    new Dispatcher.Hash(out, new int[] {0}, owner).dispatch(chunk(TYPES, ud(5L, "old"), ui(5L, "new")));
    assertThat(drain(out[0])).as("nothing for an output that owns no row").isEmpty();
    assertThat(drain(out[1])).singleElement().satisfies(c ->
        assertThat(visible(c)).usingRecursiveFieldByFieldElementComparator().containsExactly(ud(5L, "old"), ui(5L, "new")));
  }

  @Example
  void barriersGoToEveryOutput() throws InterruptedException {
    Channel[] out = channels(3);
    Barrier b = new Barrier(2, 1, null, 0);
    new Dispatcher.Hash(out, new int[] {0}, new int[VNODES]).barrier(b);
    for (Channel c : out) {
      assertThat(c.poll()).isSameAs(b);
    }
  }

  @Property(tries = 300)
  void everyVisibleRowReachesItsOwnerOnceAndOutputsAreWellFormed(@ForAll long seed) throws InterruptedException {
    Random rnd = new Random(seed);
    int outputs = 1 + rnd.nextInt(4);
    int[] owner = new int[VNODES];
    for (int v = 0; v < VNODES; v++) {
      owner[v] = rnd.nextInt(outputs);
    }
    int n = 1 + rnd.nextInt(40);
    List<Op> ops = Chunks.randomOps(rnd, n);
    List<Row> rows = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      rows.add(new Row(ops.get(i), (long) rnd.nextInt(10), "r" + i));
    }
    boolean[] vis = new boolean[n];
    for (int i = 0; i < n; i++) {
      vis[i] = rnd.nextInt(5) != 0;
    }
    // Upstream visibility must itself be well formed: hide both halves of a pair or neither.
    for (int i = 0; i < n; i++) {
      if (ops.get(i) == Op.UPDATE_INSERT) {
        vis[i] = vis[i - 1];
      }
    }
    StreamChunk in = chunk(TYPES, rows).withVisibility(vis);
    Channel[] out = channels(outputs);
    new Dispatcher.Hash(out, new int[] {0}, owner).dispatch(in);

    int[] seen = new int[n];
    for (int o = 0; o < outputs; o++) {
      for (StreamChunk c : drain(out[o])) {
        assertThat(Chunks.wellFormed(c)).as("seed %d output %d: %s", seed, o, c).isTrue();
        for (int i = 0; i < c.size(); i++) {
          if (!c.visible(i)) {
            continue;
          }
          int id = Integer.parseInt(((String) c.row(i)[1]).substring(1));
          seen[id]++;
          assertThat(owner[vnodeOf((Long) c.row(i)[0])]).isEqualTo(o);
          assertThat(Op.sign(c.op(i))).isEqualTo(Op.sign(ops.get(id).code()));
        }
      }
    }
    for (int i = 0; i < n; i++) {
      assertThat(seen[i]).as("seed %d row %d", seed, i).isEqualTo(vis[i] ? 1 : 0);
    }
  }
}
