package dev.tide.stream.nexmark;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tide.common.chunk.ChunkBuilder;
import dev.tide.common.chunk.Op;
import dev.tide.common.chunk.StreamChunk;
import dev.tide.common.config.Config;
import dev.tide.common.config.ConfigException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class NexmarkGeneratorTest {
  private static final NexmarkConfig CONFIG = NexmarkConfig.defaults().withSeed(42).withEventsPerSecond(1000);
  private static final long TOTAL_EVENTS = 20_000;

  @Test
  void sameConfigGivesSameRowsAndOtherSeedGivesOtherRows() {
    NexmarkGenerator a = new NexmarkGenerator(CONFIG);
    NexmarkGenerator b = new NexmarkGenerator(CONFIG);
    NexmarkGenerator other = new NexmarkGenerator(CONFIG.withSeed(43));
    for (NexmarkTable t : NexmarkTable.values()) {
      int differing = 0;
      for (long k = 0; k < 500; k++) {
        assertThat(a.row(t, k)).as("%s ordinal %d", t, k).containsExactly(b.row(t, k));
        if (!List.of(a.row(t, k)).equals(List.of(other.row(t, k)))) {
          differing++;
        }
      }
      assertThat(differing).as("%s rows that differ between seeds 42 and 43", t).isGreaterThan(400);
    }
  }

  @Test
  void rowsDoNotDependOnGenerationOrder() {
    NexmarkGenerator forward = new NexmarkGenerator(CONFIG);
    NexmarkGenerator backward = new NexmarkGenerator(CONFIG);
    List<Object[]> fwd = new ArrayList<>();
    for (long k = 0; k < 300; k++) {
      fwd.add(forward.row(NexmarkTable.BID, k));
    }
    for (long k = 299; k >= 0; k--) {
      assertThat(backward.row(NexmarkTable.BID, k)).containsExactly(fwd.get((int) k));
    }
  }

  @Test
  void eventMixIsOnePersonThreeAuctionsFortySixBidsPerBlock() {
    Map<NexmarkTable, Integer> counts = new EnumMap<>(NexmarkTable.class);
    for (long e = 0; e < 1000; e++) {
      counts.merge(NexmarkGenerator.tableOf(e), 1, Integer::sum);
    }
    assertThat(counts).containsEntry(NexmarkTable.PERSON, 20).containsEntry(NexmarkTable.AUCTION, 60)
        .containsEntry(NexmarkTable.BID, 920);
    assertThat(NexmarkGenerator.tableOf(0)).isEqualTo(NexmarkTable.PERSON);
    assertThat(NexmarkGenerator.tableOf(1)).isEqualTo(NexmarkTable.AUCTION);
    assertThat(NexmarkGenerator.tableOf(3)).isEqualTo(NexmarkTable.AUCTION);
    assertThat(NexmarkGenerator.tableOf(4)).isEqualTo(NexmarkTable.BID);
    assertThat(NexmarkGenerator.tableOf(49)).isEqualTo(NexmarkTable.BID);
    assertThat(NexmarkGenerator.tableOf(50)).isEqualTo(NexmarkTable.PERSON);
  }

  @Test
  void eventIdAndOrdinalsBelowAreConsistent() {
    for (NexmarkTable t : NexmarkTable.values()) {
      long prev = -1;
      for (long k = 0; k < 2000; k++) {
        long e = NexmarkGenerator.eventId(t, k);
        assertThat(e).isGreaterThan(prev);
        prev = e;
        assertThat(NexmarkGenerator.tableOf(e)).isEqualTo(t);
        assertThat(NexmarkGenerator.ordinalOf(e)).isEqualTo(k);
        assertThat(NexmarkGenerator.ordinalsBelow(t, e)).isEqualTo(k);
        assertThat(NexmarkGenerator.ordinalsBelow(t, e + 1)).isEqualTo(k + 1);
      }
    }
    for (long total = -3; total < 1000; total++) {
      long sum = 0;
      for (NexmarkTable t : NexmarkTable.values()) {
        sum += NexmarkGenerator.ordinalsBelow(t, total);
      }
      assertThat(sum).as("events below %d", total).isEqualTo(Math.max(0, total));
    }
    assertThatThrownBy(() -> NexmarkGenerator.eventId(NexmarkTable.BID, -1))
        .hasMessageContaining("ordinal -1");
  }

  @Test
  void appendRowWritesWhatRowReturns() {
    NexmarkGenerator g = new NexmarkGenerator(CONFIG);
    for (NexmarkTable t : NexmarkTable.values()) {
      ChunkBuilder out = new ChunkBuilder(t.schema().types(), 64);
      List<StreamChunk> chunks = new ArrayList<>();
      long n = 1000;
      for (long k = 0; k < n; k++) {
        g.appendRow(t, k, out);
        StreamChunk full = out.finishRow(Op.INSERT.code());
        if (full != null) {
          chunks.add(full);
        }
      }
      StreamChunk last = out.take();
      if (last != null) {
        chunks.add(last);
      }
      long k = 0;
      for (StreamChunk c : chunks) {
        assertThat(c.columnCount()).isEqualTo(t.schema().size());
        for (int i = 0; i < c.size(); i++, k++) {
          assertThat(c.op(i)).isEqualTo(Op.INSERT.code());
          assertThat(c.row(i)).as("%s ordinal %d", t, k).containsExactly(g.row(t, k));
        }
      }
      assertThat(k).isEqualTo(n);
    }
  }

  @Test
  void batchesHoldRowsValuesOfTheChosenColumnsInTheirOrder() {
    Random random = new Random(7);
    for (long seed : new long[] {0, 42, -9}) {
      NexmarkGenerator g = new NexmarkGenerator(CONFIG.withSeed(seed));
      for (NexmarkTable t : NexmarkTable.values()) {
        int width = t.schema().size();
        List<int[]> choices = new ArrayList<>();
        choices.add(IntStream.range(0, width).toArray());
        for (int c = 0; c < width; c++) {
          choices.add(new int[] {c});
        }
        for (int i = 0; i < 5; i++) {
          List<Integer> shuffled = new ArrayList<>(IntStream.range(0, width).boxed().toList());
          Collections.shuffle(shuffled, random);
          choices.add(shuffled.subList(0, 1 + random.nextInt(width)).stream().mapToInt(Integer::intValue).toArray());
        }
        for (int[] columns : choices) {
          NexmarkBatch batch = g.batch(t, columns, 50);
          List<Long> ordinals = new ArrayList<>();
          for (int r = 0; r < 120; r++) {
            // Ordinals in no particular order, as a source interleaving its splits adds them.
            ordinals.add(random.nextInt(3) == 0 ? random.nextLong(1L << 40) : random.nextInt(5000));
          }
          List<StreamChunk> chunks = new ArrayList<>();
          for (long k : ordinals) {
            batch.add(k);
            if (batch.isFull()) {
              chunks.add(batch.take());
            }
          }
          chunks.add(batch.take());
          assertThat(batch.take()).isNull();
          int r = 0;
          for (StreamChunk c : chunks) {
            assertThat(c.columnCount()).isEqualTo(columns.length);
            for (int i = 0; i < c.size(); i++, r++) {
              Object[] full = g.row(t, ordinals.get(r));
              Object[] expected = Arrays.stream(columns).mapToObj(col -> full[col]).toArray();
              assertThat(c.op(i)).isEqualTo(Op.INSERT.code());
              assertThat(c.row(i)).as("seed %d %s columns %s ordinal %d", seed, t, Arrays.toString(columns), ordinals.get(r))
                  .containsExactly(expected);
            }
          }
          assertThat(r).isEqualTo(ordinals.size());
        }
      }
    }
  }

  @Test
  void batchRefusesUnknownOrRepeatedColumnsAndAddsBeyondItsCapacity() {
    NexmarkGenerator g = new NexmarkGenerator(CONFIG);
    assertThatThrownBy(() -> g.batch(NexmarkTable.BID, new int[] {2, 8}, 16))
        .hasMessageContaining("nexmark bid has columns 0..7").hasMessageContaining("column 8 does not exist");
    assertThatThrownBy(() -> g.batch(NexmarkTable.PERSON, new int[] {1, 3, 1}, 16))
        .hasMessageContaining("column 1 ('name') is asked for twice");
    NexmarkBatch batch = g.batch(NexmarkTable.AUCTION, new int[] {0}, 1);
    batch.add(5);
    assertThatThrownBy(() -> batch.add(6)).hasMessageContaining("is full (1 rows)");
    assertThat(batch.take().row(0)).containsExactly(NexmarkGenerator.FIRST_AUCTION_ID + 5);
  }

  @Test
  void rowsHaveTheSchemaTypesAndValueRanges() {
    NexmarkGenerator g = new NexmarkGenerator(CONFIG);
    for (long k = 0; k < 300; k++) {
      Object[] p = g.row(NexmarkTable.PERSON, k);
      assertThat(p).hasSize(NexmarkTable.PERSON.schema().size());
      assertThat(p[0]).isEqualTo(NexmarkGenerator.FIRST_PERSON_ID + k);
      assertThat((String) p[2]).contains("@");
      assertThat((String) p[3]).matches("\\d{4} \\d{4} \\d{4} \\d{4}");
      assertThat(p[5]).isIn("AZ", "CA", "ID", "OR", "WA", "WY");
      assertThat(p[6]).isEqualTo(CONFIG.baseTimeMillis() + NexmarkGenerator.eventId(NexmarkTable.PERSON, k));

      Object[] a = g.row(NexmarkTable.AUCTION, k);
      assertThat(a).hasSize(NexmarkTable.AUCTION.schema().size());
      assertThat(a[0]).isEqualTo(NexmarkGenerator.FIRST_AUCTION_ID + k);
      assertThat((Long) a[3]).isPositive();
      assertThat((Long) a[4]).isGreaterThan((Long) a[3]);
      assertThat((Long) a[6]).isGreaterThan((Long) a[5])
          .isLessThanOrEqualTo((Long) a[5] + 2 * CONFIG.avgAuctionDurationMillis());
      assertThat((Long) a[8]).isBetween(10L, 14L);

      Object[] b = g.row(NexmarkTable.BID, k);
      assertThat(b).hasSize(NexmarkTable.BID.schema().size());
      assertThat((Long) b[2]).isBetween(100L, 100_000_000L);
      assertThat(b[3]).isIn("Google", "Facebook", "Baidu", "Apple");
      assertThat((String) b[4]).startsWith("https://www." + ((String) b[3]).toLowerCase() + ".com/item?id=");
      assertThat(b[7]).isEqualTo(NexmarkGenerator.eventId(NexmarkTable.BID, k));
      assertThat(b[5]).isEqualTo(CONFIG.baseTimeMillis() + (Long) b[7]);
    }
  }

  @Test
  void sellersBiddersAndAuctionsRefertoEarlierEvents() {
    NexmarkGenerator g = new NexmarkGenerator(CONFIG);
    for (long k = 0; k < NexmarkGenerator.ordinalsBelow(NexmarkTable.AUCTION, TOTAL_EVENTS); k++) {
      long e = NexmarkGenerator.eventId(NexmarkTable.AUCTION, k);
      long seller = (Long) g.row(NexmarkTable.AUCTION, k)[7];
      assertThat(seller).isGreaterThanOrEqualTo(NexmarkGenerator.FIRST_PERSON_ID);
      long sellerEvent = NexmarkGenerator.eventId(NexmarkTable.PERSON, seller - NexmarkGenerator.FIRST_PERSON_ID);
      assertThat(sellerEvent).as("seller of auction event %d", e).isLessThan(e);
    }
    for (long k = 0; k < NexmarkGenerator.ordinalsBelow(NexmarkTable.BID, TOTAL_EVENTS); k++) {
      Object[] b = g.row(NexmarkTable.BID, k);
      long e = (Long) b[7];
      long auction = (Long) b[0];
      long bidder = (Long) b[1];
      assertThat(auction).isGreaterThanOrEqualTo(NexmarkGenerator.FIRST_AUCTION_ID);
      assertThat(bidder).isGreaterThanOrEqualTo(NexmarkGenerator.FIRST_PERSON_ID);
      assertThat(NexmarkGenerator.eventId(NexmarkTable.AUCTION, auction - NexmarkGenerator.FIRST_AUCTION_ID))
          .as("auction of bid event %d", e).isLessThan(e);
      assertThat(NexmarkGenerator.eventId(NexmarkTable.PERSON, bidder - NexmarkGenerator.FIRST_PERSON_ID))
          .as("bidder of bid event %d", e).isLessThan(e);
    }
  }

  @Test
  void bidsAreSkewedTowardsHotAuctions() {
    NexmarkGenerator g = new NexmarkGenerator(CONFIG);
    Map<Long, Integer> bidsPerAuction = new HashMap<>();
    long bids = NexmarkGenerator.ordinalsBelow(NexmarkTable.BID, TOTAL_EVENTS);
    long auctions = NexmarkGenerator.ordinalsBelow(NexmarkTable.AUCTION, TOTAL_EVENTS);
    int hot = 0;
    for (long k = 0; k < bids; k++) {
      long auction = (Long) g.row(NexmarkTable.BID, k)[0];
      bidsPerAuction.merge(auction, 1, Integer::sum);
      if ((auction - NexmarkGenerator.FIRST_AUCTION_ID) % CONFIG.hotAuctionRatio() == 0) {
        hot++;
      }
    }
    // Hot ratio 2: half the bids go to the newest even ordinal, and half of the rest land on one too,
    // so even ordinals (half the auctions) get three quarters of the bids: 3x the odd ones per auction.
    assertThat((double) hot / bids).isBetween(0.70, 0.80);
    double hotPerAuction = (double) hot / (auctions / 2);
    double coldPerAuction = (double) (bids - hot) / (auctions / 2);
    assertThat(hotPerAuction / coldPerAuction).isGreaterThan(2.5);
    double mean = (double) bids / bidsPerAuction.size();
    int max = bidsPerAuction.values().stream().mapToInt(Integer::intValue).max().orElseThrow();
    assertThat(max).as("bids of the busiest auction vs mean %.1f", mean).isGreaterThan((int) (2 * mean));
  }

  @Test
  void noSkewWhenRatiosAreOne() {
    NexmarkGenerator g = new NexmarkGenerator(CONFIG.withHotRatios(1, 1, 1));
    Set<Long> auctions = new HashSet<>();
    for (long k = 0; k < 2000; k++) {
      auctions.add((Long) g.row(NexmarkTable.BID, k)[0]);
    }
    assertThat(auctions.size()).isGreaterThan(100);
  }

  @Test
  void configRejectsBadValuesNamingFieldValueAndRule() {
    assertThatThrownBy(() -> CONFIG.withHotRatios(0, 4, 4))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("hotAuctionRatio")
        .hasMessageContaining("= 0")
        .hasMessageContaining("at least 1");
    assertThatThrownBy(() -> CONFIG.withEventsPerSecond(0))
        .hasMessageContaining("eventsPerSecond").hasMessageContaining("between 1 and 1000000000");
    assertThatThrownBy(() -> CONFIG.withNumInFlightAuctions(-5))
        .hasMessageContaining("numInFlightAuctions").hasMessageContaining("-5");
    assertThatThrownBy(() -> CONFIG.withAvgAuctionDurationMillis(0))
        .hasMessageContaining("avgAuctionDurationMillis").hasMessageContaining("0ms");
    assertThatThrownBy(() -> CONFIG.withBaseTimeMillis(-1)).hasMessageContaining("baseTimeMillis");
  }

  @Test
  void configDefaultsAndParsing() {
    NexmarkConfig d = NexmarkConfig.defaults();
    assertThat(d.eventsPerSecond()).isEqualTo(10_000);
    assertThat(d.baseTimeMillis()).isEqualTo(1_735_689_600_000L);
    assertThat(d.hotAuctionRatio()).isEqualTo(2);
    assertThat(d.hotSellerRatio()).isEqualTo(4);
    assertThat(d.hotBidderRatio()).isEqualTo(4);
    assertThat(d.numActivePeople()).isEqualTo(1000);
    assertThat(d.numInFlightAuctions()).isEqualTo(100);
    assertThat(d.eventTimeMillis(25_000)).isEqualTo(d.baseTimeMillis() + 2_500);

    NexmarkConfig parsed = NexmarkConfig.fromConfig(Config.parse(
        Map.of("nexmark.seed", "7", "nexmark.events-per-second", "500", "nexmark.avg-auction-duration", "3s"),
        NexmarkConfig.OPTIONS));
    assertThat(parsed).isEqualTo(d.withSeed(7).withEventsPerSecond(500).withAvgAuctionDurationMillis(3000));
  }
}
