package dev.tide.stream.operator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** Key caches bounded by the heap budget they share, in two generations. */
class KeyCacheTest {
  static final int ENTRY = 100;

  static void fill(KeyCache<String> c, long from, long to) {
    for (long k = from; k < to; k++) {
      c.put(new long[] {k}, "v" + k);
    }
  }

  @Test
  void aHotSetThatFitsTheBudgetStaysWholeHoweverManyKeysItHas() {
    CacheBudget budget = new CacheBudget(100L << 20); // about a million entries of 100 bytes
    KeyCache<String> c = new KeyCache<>(1, ENTRY, budget);
    fill(c, 0, 300_000);
    for (int barrier = 0; barrier < 5; barrier++) {
      for (long k = 0; k < 300_000; k++) {
        assertThat(c.get(new long[] {k})).isEqualTo("v" + k);
      }
      c.age();
    }
    assertThat(c.size()).isEqualTo(300_000);
    assertThat(budget.heldBytes()).isEqualTo(300_000L * ENTRY);
  }

  /** Keys used in turns (a third of them between barriers, as a saturated aggregation over uniform keys) that fit the bound all stay. */
  @Test
  void aSetWithinTheBoundStaysWholeWhenItsKeysTakeTurns() {
    CacheBudget budget = new CacheBudget(100L << 20); // a bound of 1,048,576 entries of 100 bytes
    KeyCache<String> c = new KeyCache<>(1, ENTRY, budget);
    int keys = 900_000;
    fill(c, 0, keys);
    for (int barrier = 0; barrier < 9; barrier++) {
      for (long k = barrier % 3; k < keys; k += 3) {
        assertThat(c.get(new long[] {k})).as("key %d at barrier %d", k, barrier).isEqualTo("v" + k);
      }
      c.age();
    }
    assertThat(c.size()).isEqualTo(keys);
    fill(c, keys, keys + 200_000); // past the bound: ages (everything becomes the old generation)
    c.age();
    assertThat(c.size()).isEqualTo(keys + 200_000);
    assertThat(c.get(new long[] {keys + 1})).isEqualTo("v" + (keys + 1));
    c.age(); // still past it: drops what was not used since
    assertThat(c.size()).isEqualTo(1);
  }

  @Test
  void whileTheSharedBudgetIsExceededEveryCacheThatAgesDropsWhatItDidNotUseAndClosingGivesItsShareBack() {
    CacheBudget budget = new CacheBudget(1_000_000); // 10,000 entries of 100 bytes
    KeyCache<String> a = new KeyCache<>(1, ENTRY, budget);
    KeyCache<String> b = new KeyCache<>(1, ENTRY, budget);
    fill(a, 0, 4_000);
    fill(b, 0, 4_000);
    a.age();
    b.age();
    assertThat(budget.heldBytes()).isEqualTo(800_000);
    assertThat(a.size()).as("within the budget and below half the bound: nothing dropped").isEqualTo(4_000);

    fill(a, 4_000, 7_000);
    a.age(); // 1.1 MB held: a ages (its 7,000 entries become the old generation)
    assertThat(a.size()).isEqualTo(7_000);
    a.get(new long[] {1}); // used since: back in the young generation
    a.age(); // still 1.1 MB: a drops its old generation, keeps the key it used
    assertThat(a.size()).isEqualTo(1);
    assertThat(a.get(new long[] {1})).isEqualTo("v1");
    assertThat(budget.heldBytes()).isEqualTo(400_100);

    b.age();
    assertThat(b.size()).as("back within the budget: b keeps its keys").isEqualTo(4_000);
    b.clear();
    a.clear();
    assertThat(budget.heldBytes()).isZero();
  }

  @Test
  void aBudgetTooSmallForAChunkStillCachesTheLeastBound() {
    KeyCache<String> c = new KeyCache<>(1, ENTRY, new CacheBudget(1_000));
    fill(c, 0, KeyCache.MIN_BOUND / 2 - 1);
    c.age();
    assertThat(c.size()).isEqualTo(KeyCache.MIN_BOUND / 2 - 1);
  }

  @Test
  void aBudgetMustBePositive() {
    assertThatThrownBy(() -> new CacheBudget(0)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("operator cache budget must be positive, got 0 bytes");
  }
}
