package dev.tide.common.hash;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tide.common.chunk.Column;
import dev.tide.common.chunk.StreamChunk;
import dev.tide.common.types.DataType;
import dev.tide.common.types.TypedValues;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.zip.CRC32C;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.LongRange;

/**
 * The one vnode function: the chunk path, the row path and an independent implementation of the
 * documented canonical encoding agree, for random rows of every type and vnode counts 1..32768.
 */
class VnodeHasherPropertyTest {

  /** A random chunk: column types, rows, which columns are the key, and a vnode count. */
  record Case(DataType[] types, List<Object[]> rows, int[] keyColumns, int vnodeCount) {
    @Override
    public String toString() {
      return Arrays.toString(types) + " key " + Arrays.toString(keyColumns) + " V=" + vnodeCount + " rows "
          + rows.stream().map(Arrays::deepToString).toList();
    }
  }

  @Provide
  Arbitrary<Case> cases() {
    Arbitrary<Integer> vnodeCounts = Arbitraries.oneOf(Arbitraries.of(1, 2, 3, 256, 32768), Arbitraries.integers().between(1, 32768));
    return TypedValues.typeLists(5).flatMap(types -> Combinators.combine(
        TypedValues.row(types).list().ofMinSize(1).ofMaxSize(20),
        Arbitraries.integers().between(0, types.length - 1).set().ofMinSize(1).ofMaxSize(types.length),
        vnodeCounts)
        .as((rows, keys, v) -> new Case(types, rows, keys.stream().mapToInt(Integer::intValue).toArray(), v)));
  }

  private static StreamChunk chunkOf(DataType[] types, List<Object[]> rows) {
    Column[] cols = new Column[types.length];
    for (int c = 0; c < types.length; c++) {
      Object[] values = new Object[rows.size()];
      for (int r = 0; r < values.length; r++) {
        values[r] = rows.get(r)[c];
      }
      cols[c] = Column.ofObjects(types[c], values);
    }
    return new StreamChunk(new byte[rows.size()], cols, rows.size(), null);
  }

  @Property(tries = 1500)
  void chunkPathEqualsRowPathAndReference(@ForAll("cases") Case k) {
    StreamChunk chunk = chunkOf(k.types(), k.rows());
    VnodeHasher h = new VnodeHasher();
    int[] out = h.vnodes(chunk, k.keyColumns(), k.vnodeCount(), null);
    for (int r = 0; r < k.rows().size(); r++) {
      Object[] key = new Object[k.keyColumns().length];
      for (int i = 0; i < key.length; i++) {
        key[i] = k.rows().get(r)[k.keyColumns()[i]];
      }
      int rowPath = h.vnode(key, k.vnodeCount());
      assertThat(out[r]).as("row %d: chunk path vs row path", r).isEqualTo(rowPath);
      assertThat(rowPath).as("row %d: row path vs documented encoding", r).isEqualTo(reference(key, k.vnodeCount()));
      assertThat(rowPath).isBetween(0, k.vnodeCount() - 1);
    }
  }

  @Property
  void intAndBigintOfEqualValueHashAlike(@ForAll int v, @ForAll @IntRange(min = 1, max = 32768) int vnodeCount) {
    VnodeHasher h = new VnodeHasher();
    assertThat(h.vnode(new Object[] {v}, vnodeCount)).isEqualTo(h.vnode(new Object[] {(long) v}, vnodeCount));
    StreamChunk ints = new StreamChunk(new byte[1], new Column[] {Column.ofObjects(DataType.INT, v)}, 1, null);
    StreamChunk longs = new StreamChunk(new byte[1], new Column[] {Column.ofObjects(DataType.BIGINT, (long) v)}, 1, null);
    assertThat(h.vnodes(ints, new int[] {0}, vnodeCount, null)[0]).isEqualTo(h.vnodes(longs, new int[] {0}, vnodeCount, null)[0]);
  }

  @Property
  void timestampHashesLikeBigint(@ForAll long v, @ForAll @IntRange(min = 1, max = 32768) int vnodeCount) {
    VnodeHasher h = new VnodeHasher();
    StreamChunk ts = new StreamChunk(new byte[1], new Column[] {Column.ofObjects(DataType.TIMESTAMP, v)}, 1, null);
    assertThat(h.vnodes(ts, new int[] {0}, vnodeCount, null)[0]).isEqualTo(h.vnode(new Object[] {v}, vnodeCount));
  }

  @Property
  void resultIsInRangeForExtremeVnodeCounts(@ForAll long v, @ForAll @LongRange(min = 1, max = 32768) long vnodeCount) {
    int vnode = new VnodeHasher().vnode(new Object[] {v, "x"}, (int) vnodeCount);
    assertThat(vnode).isBetween(0, (int) vnodeCount - 1);
  }

  @Example
  void equivalentDoublesHashAlike() {
    VnodeHasher h = new VnodeHasher();
    assertThat(h.vnode(new Object[] {-0.0}, 32768)).isEqualTo(h.vnode(new Object[] {0.0}, 32768));
    assertThat(h.vnode(new Object[] {Double.longBitsToDouble(0x7ff0000000000001L)}, 32768))
        .isEqualTo(h.vnode(new Object[] {Double.NaN}, 32768));
  }

  @Example
  void chunkPathReusesAndGrowsTheOutputArray() {
    VnodeHasher h = new VnodeHasher();
    StreamChunk c = new StreamChunk(new byte[3], new Column[] {Column.ofObjects(DataType.BIGINT, 1L, 2L, 3L)}, 3, null);
    int[] small = new int[1];
    int[] out = h.vnodes(c, new int[] {0}, 256, small);
    assertThat(out).hasSizeGreaterThanOrEqualTo(3).isNotSameAs(small);
    int[] big = new int[8];
    assertThat(h.vnodes(c, new int[] {0}, 256, big)).isSameAs(big);
  }

  /** The canonical encoding as the class comment documents it, fed to CRC32C. */
  private static int reference(Object[] key, int vnodeCount) {
    if (vnodeCount == 1) {
      return 0;
    }
    ByteBuffer b = ByteBuffer.allocate(4096);
    for (Object v : key) {
      if (v == null) {
        b.put((byte) 0);
        continue;
      }
      b.put((byte) 1);
      if (v instanceof Integer i) {
        b.putLong(i);
      } else if (v instanceof Long l) {
        b.putLong(l);
      } else if (v instanceof Double d) {
        b.putLong(Double.doubleToLongBits(d == 0.0 ? 0.0 : d));
      } else if (v instanceof Boolean z) {
        b.put((byte) (z ? 1 : 0));
      } else {
        byte[] s = ((String) v).getBytes(StandardCharsets.UTF_8);
        b.put(s).putInt(s.length);
      }
    }
    CRC32C crc = new CRC32C();
    crc.update(b.array(), 0, b.position());
    return (int) (crc.getValue() % vnodeCount);
  }
}
