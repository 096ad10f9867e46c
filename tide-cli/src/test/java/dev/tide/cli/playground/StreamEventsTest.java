package dev.tide.cli.playground;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tide.cluster.CommittedViews.SourceProgress;
import java.util.List;
import org.junit.jupiter.api.Test;

class StreamEventsTest {
  @Test
  void bidsCoverThePersonsAndAuctionsBetweenThem() {
    // 46 bids make up one block of 50 events (1 person, 3 auctions, 46 bids).
    assertThat(Playground.streamEvents(List.of(new SourceProgress("bid", 46, -1)))).isEqualTo(50);
    assertThat(Playground.streamEvents(List.of(new SourceProgress("bid", 0, -1)))).isZero();
  }

  @Test
  void theFurthestSourceOfAJobCounts() {
    List<SourceProgress> q8 = List.of(new SourceProgress("person", 2, -1), new SourceProgress("auction", 3, -1));
    // The second person is event 50, the third auction event 3: the stream is covered up to event 50.
    assertThat(Playground.streamEvents(q8)).isEqualTo(51);
  }
}
