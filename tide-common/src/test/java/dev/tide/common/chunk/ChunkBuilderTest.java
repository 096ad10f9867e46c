package dev.tide.common.chunk;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tide.common.types.DataType;
import dev.tide.common.types.TypedValues;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/** Chunk building (full chunks at capacity, partial take), joined rows, visibility, compact and gather. */
class ChunkBuilderTest {
  private static final DataType[] TYPES = {DataType.BIGINT, DataType.VARCHAR, DataType.DOUBLE, DataType.INT, DataType.BOOLEAN, DataType.TIMESTAMP};

  record Rows(List<Object[]> rows, List<Byte> ops, int capacity) {
    @Override
    public String toString() {
      return "cap " + capacity + " ops " + ops + " rows " + rows.stream().map(Arrays::deepToString).toList();
    }
  }

  @Provide
  Arbitrary<Rows> rows() {
    return Arbitraries.integers().between(0, 60).flatMap(n -> Combinators.combine(
        TypedValues.row(TYPES).list().ofSize(n),
        Arbitraries.of(Op.values()).map(Op::code).list().ofSize(n),
        Arbitraries.integers().between(1, 17)).as(Rows::new));
  }

  /** All chunks a builder emits for the rows, the final partial one included. */
  private static List<StreamChunk> build(Rows r) {
    ChunkBuilder b = new ChunkBuilder(TYPES, r.capacity());
    List<StreamChunk> out = new ArrayList<>();
    for (int i = 0; i < r.rows().size(); i++) {
      StreamChunk full = b.appendRow(r.ops().get(i), r.rows().get(i));
      if (full != null) {
        assertThat(full.size()).isEqualTo(r.capacity());
        out.add(full);
      }
      assertThat(b.size()).isLessThan(r.capacity());
    }
    StreamChunk rest = b.take();
    if (rest != null) {
      out.add(rest);
    }
    assertThat(b.take()).as("nothing left after take").isNull();
    return out;
  }

  @Property(tries = 300)
  void chunksHoldTheRowsAndOpsInOrder(@ForAll("rows") Rows r) {
    List<StreamChunk> chunks = build(r);
    List<Object[]> rows = new ArrayList<>();
    List<Byte> ops = new ArrayList<>();
    for (StreamChunk c : chunks) {
      assertThat(c.types()).containsExactly(TYPES);
      assertThat(c.visibility()).isNull();
      for (int i = 0; i < c.size(); i++) {
        rows.add(c.row(i));
        ops.add(c.op(i));
      }
    }
    assertThat(ops).isEqualTo(r.ops());
    assertThat(rows).usingElementComparator(ChunkBuilderTest::compareRows).isEqualTo(r.rows());
  }

  @Property(tries = 300)
  void compactKeepsVisibleRowsWithTheirOps(@ForAll("rows") Rows r, @ForAll long visibilitySeed) {
    ChunkBuilder b = new ChunkBuilder(TYPES, Math.max(1, r.rows().size()));
    for (int i = 0; i < r.rows().size(); i++) {
      b.appendRow(r.ops().get(i), r.rows().get(i));
    }
    StreamChunk c = b.take();
    if (c == null) {
      return;
    }
    java.util.Random rnd = new java.util.Random(visibilitySeed);
    boolean[] vis = new boolean[c.size()];
    List<Object[]> expectedRows = new ArrayList<>();
    List<Byte> expectedOps = new ArrayList<>();
    for (int i = 0; i < vis.length; i++) {
      vis[i] = rnd.nextBoolean();
      if (vis[i]) {
        expectedRows.add(r.rows().get(i));
        expectedOps.add(r.ops().get(i));
      }
    }
    StreamChunk masked = c.withVisibility(vis);
    assertThat(masked.cardinality()).isEqualTo(expectedRows.size());
    assertThat(masked.visibleRows()).usingElementComparator(ChunkBuilderTest::compareRows).isEqualTo(expectedRows);
    StreamChunk compact = masked.compact();
    assertThat(compact.visibility()).isNull();
    assertThat(compact.size()).isEqualTo(expectedRows.size());
    List<Byte> ops = new ArrayList<>();
    for (int i = 0; i < compact.size(); i++) {
      ops.add(compact.op(i));
    }
    assertThat(ops).isEqualTo(expectedOps);
    assertThat(compact.visibleRows()).usingElementComparator(ChunkBuilderTest::compareRows).isEqualTo(expectedRows);
    assertThat(c.compact()).as("a chunk without a mask compacts to itself").isSameAs(c);
  }

  @Example
  void appendFromAndAppendJoinedCopyNullsAndStrings() {
    DataType[] left = {DataType.BIGINT, DataType.VARCHAR};
    ChunkBuilder lb = new ChunkBuilder(left, 4);
    lb.appendRow(Op.INSERT.code(), new Object[] {1L, "a\0"});
    lb.appendRow(Op.DELETE.code(), new Object[] {null, null});
    StreamChunk l = lb.take();

    ChunkBuilder copy = new ChunkBuilder(left, 4);
    copy.appendFrom(Op.UPDATE_DELETE.code(), l, 1);
    copy.appendFrom(Op.UPDATE_INSERT.code(), l, 0);
    StreamChunk c = copy.take();
    assertThat(c.row(0)).containsExactly(null, null);
    assertThat(c.row(1)).containsExactly(1L, "a\0");
    assertThat(c.ops()).containsExactly(Op.UPDATE_DELETE.code(), Op.UPDATE_INSERT.code());

    DataType[] joined = {DataType.BIGINT, DataType.VARCHAR, DataType.INT, DataType.VARCHAR};
    ChunkBuilder jb = new ChunkBuilder(joined, 2);
    assertThat(jb.appendJoined(Op.INSERT.code(), l, 0, new Object[] {7, "x"})).isNull();
    StreamChunk full = jb.appendJoined(Op.DELETE.code(), l, 1, new Object[] {null, "é"});
    assertThat(full).isNotNull();
    assertThat(full.row(0)).containsExactly(1L, "a\0", 7, "x");
    assertThat(full.row(1)).containsExactly(null, null, null, "é");
  }

  @Example
  void gatherMayRepeatAndReorderRows() {
    StreamChunk c = new StreamChunk(new byte[] {0, 1, 2}, new Column[] {Column.ofObjects(DataType.VARCHAR, "a", null, "c")}, 3, null);
    StreamChunk g = c.gather(new int[] {2, 0, 2, 1}, 4);
    assertThat(g.visibleRows()).extracting(row -> row[0]).containsExactly("c", "a", "c", null);
    assertThat(g.ops()).containsExactly(2, 0, 2, 1);
  }

  @Example
  void fullyVisibleMaskCompactsWithoutCopyingColumns() {
    Column col = Column.ofObjects(DataType.INT, 1, 2);
    StreamChunk c = new StreamChunk(new byte[2], new Column[] {col}, 2, new boolean[] {true, true});
    StreamChunk compact = c.compact();
    assertThat(compact.visibility()).isNull();
    assertThat(compact.column(0)).isSameAs(col);
  }

  @Example
  void refusesColumnsOfTheWrongSizeAndAZeroCapacity() {
    assertThatThrownBy(() -> new StreamChunk(new byte[2], new Column[] {Column.ofObjects(DataType.INT, 1)}, 2, null))
        .hasMessageContaining("column size 1 differs from chunk size 2");
    assertThatThrownBy(() -> new ChunkBuilder(TYPES, 0)).hasMessageContaining("chunk capacity 0 must be at least 1");
    assertThatThrownBy(() -> new LongColumn(DataType.INT, new long[0], 0, null)).hasMessageContaining("cannot hold type INT");
  }

  @Example
  void opCodesAndSigns() {
    for (Op op : Op.values()) {
      assertThat(Op.of(op.code())).isEqualTo(op);
    }
    assertThat(Op.sign(Op.INSERT.code())).isEqualTo(1);
    assertThat(Op.sign(Op.UPDATE_INSERT.code())).isEqualTo(1);
    assertThat(Op.sign(Op.DELETE.code())).isEqualTo(-1);
    assertThat(Op.sign(Op.UPDATE_DELETE.code())).isEqualTo(-1);
    assertThat(Op.normalize(Op.UPDATE_INSERT.code())).isEqualTo(Op.INSERT.code());
    assertThat(Op.normalize(Op.UPDATE_DELETE.code())).isEqualTo(Op.DELETE.code());
  }

  private static int compareRows(Object[] a, Object[] b) {
    return Arrays.equals(a, b) ? 0 : 1;
  }
}
