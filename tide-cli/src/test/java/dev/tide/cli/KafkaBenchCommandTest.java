package dev.tide.cli;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** {@code tide bench kafka} end to end at a tiny size: it runs, counts every bid and checks its output topic. */
class KafkaBenchCommandTest {
  @Test
  void smallRunCountsEveryBidAndChecksTheOutputTopic() {
    TideCliTest.Run r = TideCliTest.tide("bench", "kafka", "--events", "20000", "--auctions", "500", "--partitions", "4",
        "--slots", "2", "--barrier-interval", "100ms");
    assertThat(r.exitCode()).as(r.out() + r.err()).isZero();
    assertThat(r.out()).contains("20,000 bids counted", "events/s end to end", "steady part",
        "the last record of each of the 500 auctions equals its count and top price");
  }

  @Test
  void avroRunChecksTheAvroOutputTopic() {
    TideCliTest.Run r = TideCliTest.tide("bench", "kafka", "--format", "avro", "--events", "20000", "--auctions", "300",
        "--partitions", "2", "--slots", "2", "--barrier-interval", "100ms");
    assertThat(r.exitCode()).as(r.out() + r.err()).isZero();
    assertThat(r.out()).contains("20,000 Avro bids", "20,000 bids counted", "each of the 300 auctions equals");
  }

  @Test
  void badOptionIsRefusedNamingIt() {
    TideCliTest.Run r = TideCliTest.tide("bench", "kafka", "--partitions", "0");
    assertThat(r.exitCode()).isNotZero();
    assertThat(r.err()).contains("--partitions").contains("0");
    TideCliTest.Run f = TideCliTest.tide("bench", "kafka", "--format", "xml");
    assertThat(f.exitCode()).isNotZero();
    assertThat(f.err()).contains("--format").contains("'xml'").contains("json or avro");
  }
}
