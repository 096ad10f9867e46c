package dev.tide.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

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
    assertThatThrownBy(() -> b.add(new Object[] {new byte[1]})).hasMessageContaining("only numbers, strings and null");
  }
}
