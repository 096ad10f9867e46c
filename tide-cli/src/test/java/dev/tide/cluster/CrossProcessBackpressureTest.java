package dev.tide.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tide.common.chunk.StreamChunk;
import dev.tide.stream.exchange.ExchangeClient;
import dev.tide.stream.exchange.ExchangeConfig;
import dev.tide.stream.exchange.ExchangeProbe;
import dev.tide.stream.exchange.RemoteOutput;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A downstream in another process that stops reading bounds what the upstream sends: the link's
 * permits run out, the sender blocks, and no more than the window is ever in flight.
 */
class CrossProcessBackpressureTest {
  @Test
  void aStalledReceiverInAnotherProcessBlocksTheSenderAtTheWindow(@TempDir Path dir) throws Exception {
    ExchangeConfig config = ExchangeConfig.defaults();
    TideProcess receiver = TideProcess.startMain("stalled-receiver", ExchangeProbe.class.getName(), List.of("serve", "0", "stall"),
        dir.resolve("receiver.log"), Pattern.compile("listening on (\\d+)"), Duration.ofMinutes(2)).process();
    String port = Pattern.compile("listening on (\\d+)").matcher(receiver.output()).results().findFirst().orElseThrow().group(1);
    try (ExchangeClient client = ExchangeClient.plaintext(config)) {
      RemoteOutput link = client.open("127.0.0.1:" + port, 1, 2);
      StreamChunk[] chunks = ExchangeProbe.bidChunks(4);
      AtomicLong attempted = new AtomicLong();
      Thread sender = new Thread(() -> {
        try {
          for (int i = 0; i < 10_000; i++) {
            attempted.incrementAndGet();
            link.send(chunks[i % chunks.length]);
          }
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        } catch (RuntimeException e) {
          // the link broke when the test ended
        }
      }, "sender");
      sender.start();
      // Blocked after sending: the receiver granted permits, they were used up, and none came back.
      await().atMost(Duration.ofMinutes(1)).until(() -> link.messagesSent() > 0 && link.permits() == 0
          && (sender.getState() == Thread.State.WAITING || sender.getState() == Thread.State.TIMED_WAITING));
      long sent = link.messagesSent();
      assertThat(sent).as("messages in flight to a receiver that reads nothing").isLessThanOrEqualTo(config.windowMessages());
      // It stays there: the sender is still blocked on the next message.
      Thread.sleep(500);
      assertThat(link.messagesSent()).isEqualTo(sent);
      assertThat(attempted.get()).isEqualTo(sent + 1);
      assertThat(sender.isAlive()).isTrue();
      sender.interrupt();
      link.abort("test over");
    } finally {
      receiver.kill();
    }
  }
}
