package dev.tide.cli.text;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tide.proto.plan.DataTypeProto;
import java.util.List;
import org.junit.jupiter.api.Test;

class TextTableTest {
  @Test
  void numericColumnsAlignRightOthersLeft() {
    List<String> lines = TextTable.render("  ", List.of("name", "count"),
        List.of(List.of("q5", "7"), List.of("longer", "1,234")));

    assertThat(lines).containsExactly(
        "  name    count",
        "  q5          7",
        "  longer  1,234");
  }

  @Test
  void cellsFormatTimestampsInUtcAndDoublesWithTwoDecimals() {
    assertThat(Cells.value(1_735_689_610_000L, DataTypeProto.TIMESTAMP)).isEqualTo("2025-01-01 00:00:10");
    assertThat(Cells.value(1_735_689_610_250L, DataTypeProto.TIMESTAMP)).isEqualTo("2025-01-01 00:00:10.250");
    assertThat(Cells.value(0.908 * 3, DataTypeProto.DOUBLE)).isEqualTo("2.72");
    assertThat(Cells.value(null, DataTypeProto.BIGINT)).isEqualTo("NULL");
    assertThat(Cells.count(1_234_567)).isEqualTo("1,234,567");
  }
}
