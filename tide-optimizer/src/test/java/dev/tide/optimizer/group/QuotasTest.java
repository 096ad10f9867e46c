package dev.tide.optimizer.group;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.DoubleRange;
import net.jqwik.api.constraints.IntRange;
import org.junit.jupiter.api.Test;

/** Quota-aware serviceable demand (spec 4, 10). */
class QuotasTest {

  @Test
  void limitIsAShareUpToOneAndAnAbsoluteCountAbove() {
    assertThat(Quotas.limit(0.5, 7)).isEqualTo(4);
    assertThat(Quotas.limit(0.1, 1)).isEqualTo(1);
    assertThat(Quotas.limit(1.0, 9)).isEqualTo(9);
    assertThat(Quotas.limit(3.7, 100)).isEqualTo(3);
    assertThat(Quotas.limit(0.5, 0)).isZero();
  }

  @Test
  void proportionalTableCountsItsWholeBacklog() {
    // Limit ceil(0.5 × 4) = 2 is already used by 2 occupied threads, yet all 9 count: scaling raises the limit.
    assertThat(Quotas.serviceable(new TableLoad("a", TableStatus.OPTIMIZING, 0.5, 9, 2))).isEqualTo(9);
    assertThat(Quotas.serviceable(new TableLoad("a", TableStatus.OPTIMIZING, 1.0, 9, 20))).isEqualTo(9);
  }

  @Test
  void absoluteTableCountsOnlyItsFreeSlots() {
    assertThat(Quotas.serviceable(new TableLoad("b", TableStatus.OPTIMIZING, 3, 10, 2))).isEqualTo(1);
    assertThat(Quotas.serviceable(new TableLoad("b", TableStatus.OPTIMIZING, 3, 10, 3))).isZero();
    assertThat(Quotas.serviceable(new TableLoad("b", TableStatus.OPTIMIZING, 3, 10, 5))).as("over its limit").isZero();
    assertThat(Quotas.serviceable(new TableLoad("b", TableStatus.OPTIMIZING, 8.9, 2, 0))).isEqualTo(2);
  }

  @Test
  void groupSumAddsProportionalBacklogsAndAbsoluteFreeSlots() {
    List<TableLoad> tables = List.of(
        new TableLoad("a", TableStatus.OPTIMIZING, 0.5, 5, 1),
        new TableLoad("b", TableStatus.OPTIMIZING, 3, 10, 2),
        new TableLoad("c", TableStatus.PENDING, TableLoad.DEFAULT_QUOTA, 0, 0));
    assertThat(Quotas.serviceable(tables)).isEqualTo(6);
  }

  @Test
  void invalidQuotasAreRefused() {
    assertThatThrownBy(() -> new TableLoad("x", TableStatus.IDLE, 0, 0, 0)).hasMessageContaining("self-optimizing.quota 0.0");
    assertThatThrownBy(() -> new TableLoad("x", TableStatus.IDLE, Double.NaN, 0, 0)).hasMessageContaining("positive finite");
  }

  @Property
  void serviceableNeverExceedsPlanned(@ForAll @DoubleRange(min = 0.01, max = 64) double quota,
      @ForAll @IntRange(max = 1000) int planned, @ForAll @IntRange(max = 100) int occupied) {
    int s = Quotas.serviceable(new TableLoad("t", TableStatus.OPTIMIZING, quota, planned, occupied));
    assertThat(s).isBetween(0, planned);
    if (quota > 1) {
      assertThat(occupied + s).isLessThanOrEqualTo(Math.max(occupied, (int) quota));
    }
  }
}
