package dev.tide.stream.nexmark;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

class NexmarkReferenceTest {
  private static final NexmarkConfig CONFIG = NexmarkConfig.defaults().withSeed(42).withEventsPerSecond(1000);

  private static Object[] person(long id, String name, String state, long dateTime) {
    return new Object[] {id, name, name + "@x", "0000 0000 0000 0000", "City" + id, state, dateTime, ""};
  }

  private static Object[] auction(long id, long seller, long category, long dateTime, long expires) {
    return new Object[] {id, "item", "desc", 1L, 2L, dateTime, expires, seller, category, ""};
  }

  private static Object[] bid(long auction, long price, long dateTime, long rowId) {
    return new Object[] {auction, 7L, price, "Apple", "https://www.apple.com/item?id=1", dateTime, "", rowId};
  }

  private static List<Object> r(Object... values) {
    return Arrays.asList(values);
  }

  @Test
  void generatedReferencesAreNonEmpty() {
    NexmarkReference.Events ev = NexmarkReference.Events.generate(CONFIG, 20_000);
    assertThat(ev.persons()).hasSize(400);
    assertThat(ev.auctions()).hasSize(1200);
    assertThat(ev.bids()).hasSize(18_400);
    assertThat(NexmarkReference.query("q0", ev)).hasSize(18_400);
    assertThat(NexmarkReference.query("q1", ev)).hasSize(18_400);
    assertThat(NexmarkReference.query("q2", ev)).isNotEmpty();
    assertThat(NexmarkReference.query("q3", ev)).hasSizeGreaterThan(20);
    assertThat(NexmarkReference.query("q4", ev)).hasSize(5);
    assertThat(NexmarkReference.query("q5", ev)).hasSizeGreaterThanOrEqualTo(10);
    assertThat(NexmarkReference.query("q7", ev)).hasSizeGreaterThanOrEqualTo(2);
    assertThat(NexmarkReference.query("q8", ev)).hasSizeGreaterThan(20);
    assertThat(NexmarkReference.q3(CONFIG, 20_000)).isEqualTo(NexmarkReference.query("q3", ev));
  }

  @Test
  void q0q1q2ProjectAndFilterBids() {
    List<Object[]> bids = List.of(bid(246, 10, 5, 4), bid(1000, 3, 6, 5), bid(123, 1, 7, 6));
    assertThat(NexmarkReference.q0(bids)).containsExactly(
        r(123L, 7L, 1L, 7L), r(246L, 7L, 10L, 5L), r(1000L, 7L, 3L, 6L));
    assertThat(NexmarkReference.q1(bids).get(1)).isEqualTo(r(246L, 7L, 0.908 * 10, 5L));
    assertThat(NexmarkReference.q2(bids)).containsExactly(r(123L, 1L), r(246L, 10L));
  }

  @Test
  void q3JoinsCategoryTenAuctionsWithSellersFromOregonIdahoCalifornia() {
    List<Object[]> persons = List.of(person(1, "Ann", "OR", 0), person(2, "Bob", "WA", 0), person(3, "Cy", "CA", 0));
    List<Object[]> auctions = List.of(
        auction(100, 1, 10, 0, 1), auction(101, 2, 10, 0, 1), auction(102, 3, 11, 0, 1),
        auction(103, 3, 10, 0, 1), auction(104, 9, 10, 0, 1));
    assertThat(NexmarkReference.q3(auctions, persons)).containsExactly(
        r("Ann", "City1", "OR", 100L), r("Cy", "City3", "CA", 103L));
  }

  @Test
  void q4AveragesTheWinningBidsWithinEachAuctionsLifetime() {
    List<Object[]> auctions = List.of(auction(1, 0, 10, 0, 100), auction(2, 0, 10, 0, 100), auction(3, 0, 11, 0, 100));
    List<Object[]> bids = List.of(
        bid(1, 5, 50, 10), bid(1, 7, 100, 11), bid(1, 99, 101, 12), bid(2, 2, 0, 13), bid(3, 4, 200, 14));
    assertThat(NexmarkReference.q4(auctions, bids)).containsExactly(r(10L, 4.5));
  }

  @Test
  void q5FindsTheBusiestAuctionsOfEachHopWindow() {
    List<Object[]> bids = List.of(
        bid(1, 1, 0, 0), bid(1, 1, 1000, 1), bid(2, 1, 1500, 2), bid(2, 1, 9_999, 3), bid(2, 1, 10_000, 4));
    // Windows of 10 s every 2 s: t=0,1000,1500 are in [-8000..0]; 9999 in [0..8000]; 10000 in [2000..10000].
    assertThat(NexmarkReference.q5(bids)).containsExactly(
        r(1L, 2L, -8000L), r(1L, 2L, -6000L), r(1L, 2L, -4000L), r(1L, 2L, -2000L), r(1L, 2L, 0L),
        r(2L, 1L, 10_000L),
        r(2L, 2L, 0L), r(2L, 2L, 2000L), r(2L, 2L, 4000L), r(2L, 2L, 6000L), r(2L, 2L, 8000L));
    // Tumbling when slide == size.
    assertThat(NexmarkReference.q5(bids, 10_000, 10_000)).containsExactly(r(1L, 2L, 0L), r(2L, 1L, 10_000L), r(2L, 2L, 0L));
  }

  @Test
  void q7KeepsTheHighestBidsOfEachTumblingWindow() {
    List<Object[]> bids = List.of(
        bid(1, 5, 1, 4), bid(2, 9, 2, 5), bid(3, 9, 9_999, 6), bid(4, 3, 10_000, 7), bid(5, 1, 10_001, 8));
    assertThat(NexmarkReference.q7(bids)).containsExactly(
        r(2L, 9L, 7L, 2L), r(3L, 9L, 7L, 9_999L), r(4L, 3L, 7L, 10_000L));
    assertThat(NexmarkReference.q7(bids, 5_000)).containsExactly(
        r(2L, 9L, 7L, 2L), r(3L, 9L, 7L, 9_999L), r(4L, 3L, 7L, 10_000L));
  }

  @Test
  void q8FindsPersonsWhoOpenAnAuctionInTheirJoiningWindow() {
    List<Object[]> persons = List.of(person(1, "Ann", "OR", 100), person(2, "Bob", "WA", 9_000), person(3, "Cy", "CA", 12_000));
    List<Object[]> auctions = List.of(
        auction(100, 1, 10, 5_000, 6_000), auction(101, 2, 10, 10_500, 11_000),
        auction(102, 3, 10, 19_999, 20_000), auction(103, 1, 10, 6_000, 7_000));
    assertThat(NexmarkReference.q8(persons, auctions)).containsExactly(r(1L, "Ann", 0L), r(3L, "Cy", 10_000L));
    assertThat(NexmarkReference.q8(persons, auctions, 20_000))
        .containsExactly(r(1L, "Ann", 0L), r(2L, "Bob", 0L), r(3L, "Cy", 0L));
  }

  @Test
  void windowStartFloorsNegativeTimes() {
    assertThat(NexmarkReference.windowStart(-1, 10)).isEqualTo(-10);
    assertThat(NexmarkReference.windowStart(19, 10)).isEqualTo(10);
  }

  @Test
  void rowOrderPutsNullFirstAndComparesMixedTypes() {
    List<List<Object>> rows = new ArrayList<>(List.of(
        r(2L, "b"), r(null, "z"), r(1L, null), r(1L, "a"), r(1.5, "x"), r(1L), r("s", 0L)));
    assertThat(NexmarkReference.sorted(rows)).containsExactly(
        r(null, "z"), r(1L), r(1L, null), r(1L, "a"), r(1.5, "x"), r(2L, "b"), r("s", 0L));
  }
}
