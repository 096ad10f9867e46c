package dev.tide.common.hash;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tide.common.chunk.ChunkBuilder;
import dev.tide.common.chunk.Op;
import dev.tide.common.chunk.StreamChunk;
import dev.tide.common.types.DataType;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

class RowFingerprintTest {
  static RowFingerprint of(List<List<Object>> rows) {
    RowFingerprint.Builder b = new RowFingerprint.Builder();
    rows.forEach(b::add);
    return b.build();
  }

  @Test
  void orderDoesNotMatterButMultiplicityAndValuesDo() {
    List<Object> a = List.of(1L, "x", 0.5);
    List<Object> b = List.of(2L, "y", 1.5);
    assertThat(of(List.of(a, b))).isEqualTo(of(List.of(b, a)));
    assertThat(of(List.of(a, b))).isNotEqualTo(of(List.of(a, a, b)));
    assertThat(of(List.of(a))).isNotEqualTo(of(List.of(List.of(1L, "x", 0.25))));
    assertThat(of(List.of(List.of(1L, 2L)))).isNotEqualTo(of(List.of(List.of(2L, 1L))));
  }

  @Test
  void valuesHashByKindSoEnginesWithDifferentBoxesAgree() {
    assertThat(of(List.of(List.<Object>of(7, -0.0f)))).isEqualTo(of(List.of(List.<Object>of(7L, 0.0))));
    assertThat(of(List.of(List.<Object>of(7L)))).isNotEqualTo(of(List.of(List.<Object>of(7.0))));
  }

  @Test
  void partsAddUpAndTheTextFormRoundTrips() {
    List<Object> a = List.of(1L, "x");
    List<Object> b = List.of(2L, "y");
    RowFingerprint whole = of(List.of(a, b));
    assertThat(of(List.of(a)).plus(of(List.of(b)))).isEqualTo(whole);
    assertThat(RowFingerprint.parse(whole.toString())).isEqualTo(whole);
    assertThatThrownBy(() -> RowFingerprint.parse("12:ab")).hasMessageContaining("rows:sumA:sumB");
  }

  @Test
  void otherValueKindsAreRefused() {
    RowFingerprint.Builder b = new RowFingerprint.Builder();
    assertThatThrownBy(() -> b.add(new Object[] {new byte[1]})).hasMessageContaining("only numbers, strings, booleans and null");
  }

  @Test
  void aChangelogNettedEqualsItsFinalMultiset() {
    List<Object> a = List.of(1L, "x");
    List<Object> b = List.of(2L, "y");
    List<Object> c = List.of(3L, "z");
    RowFingerprint.Builder log = new RowFingerprint.Builder();
    log.add(a);
    log.add(b);
    log.remove(a); // a delete
    log.add(a);
    log.remove(b); // an update of b to c
    log.add(c);
    assertThat(log.build()).isEqualTo(of(List.of(a, c)));
    RowFingerprint.Builder undone = new RowFingerprint.Builder();
    undone.add(b);
    undone.remove(b);
    assertThat(undone.build()).isEqualTo(RowFingerprint.EMPTY);
  }

  @Test
  void aChunksColumnsHashLikeItsBoxedRows() {
    DataType[] types = {DataType.BIGINT, DataType.INT, DataType.DOUBLE, DataType.VARCHAR, DataType.TIMESTAMP, DataType.BOOLEAN};
    Object[][] rows = {
        {1L, 2, 0.5, "ascii", 1_000L, true},
        {-7L, null, -0.0, "caf\u00e9 \u6f22\ud83d\ude00", 0L, false},
        {null, 0, null, null, null, null},
        {Long.MAX_VALUE, Integer.MIN_VALUE, Double.NaN, "", -1L, true}};
    byte[] ops = {Op.INSERT.code(), Op.UPDATE_INSERT.code(), Op.DELETE.code(), Op.UPDATE_DELETE.code()};
    ChunkBuilder cb = new ChunkBuilder(types, rows.length);
    StreamChunk chunk = null;
    for (int i = 0; i < rows.length; i++) {
      chunk = cb.appendRow(ops[i], rows[i]);
    }
    int[] projection = {3, 0, 2, 5, 1};
    RowFingerprint.Builder columns = new RowFingerprint.Builder();
    columns.add(chunk, projection);
    RowFingerprint.Builder boxed = new RowFingerprint.Builder();
    for (int i = 0; i < rows.length; i++) {
      Object[] r = rows[i];
      List<Object> projected = Arrays.stream(projection).mapToObj(p -> r[p]).toList();
      if (Op.isInsert(ops[i])) {
        boxed.add(projected);
      } else {
        boxed.remove(projected);
      }
    }
    assertThat(columns.build()).isEqualTo(boxed.build());
    assertThat(columns.build().rows()).isZero();

    RowFingerprint.Builder hidden = new RowFingerprint.Builder();
    hidden.add(chunk.withVisibility(new boolean[] {true, false, false, false}), projection);
    assertThat(hidden.build()).isEqualTo(of(List.of(Arrays.stream(projection).mapToObj(p -> rows[0][p]).toList())));
  }
}
