package dev.tide.stream.exchange;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Records per second through one exchange link on loopback with {@link ExchangeProbe}: to a receiver
 * in a child JVM (a cross-process link) and to one in this JVM. Figures are printed for notes, never
 * asserted; the test asserts every row arrived. {@code main} runs it longer:
 * {@code main [CHUNKS]}.
 */
class ExchangeThroughputTest {

  @Test
  void everyRowCrossesToAnotherProcess() throws Exception {
    ExchangeProbe.Result r = crossProcess(300);
    assertThat(r.rows()).isEqualTo(300L * 1024);
  }

  @Test
  void everyRowCrossesWithinOneProcess() throws Exception {
    try (ExchangeProbe.Receiver receiver = ExchangeProbe.serve(new InetSocketAddress("127.0.0.1", 0), ExchangeConfig.defaults())) {
      ExchangeProbe.Result r = ExchangeProbe.send("127.0.0.1:" + receiver.port(), 300, ExchangeConfig.defaults());
      System.out.println("exchange loopback, one JVM: " + r);
      assertThat(receiver.rows()).isEqualTo(r.rows()).isEqualTo(300L * 1024);
    }
  }

  public static void main(String[] args) throws Exception {
    int chunks = args.length > 0 ? Integer.parseInt(args[0]) : 20_000;
    for (int round = 0; round < 3; round++) {
      crossProcess(chunks);
    }
  }

  /** Sends {@code chunks} chunks to a probe receiver in a child JVM on this machine. */
  static ExchangeProbe.Result crossProcess(int chunks) throws Exception {
    Path java = Path.of(System.getProperty("java.home"), "bin", "java");
    Process child = new ProcessBuilder(List.of(java.toString(), "-cp", System.getProperty("java.class.path"),
        ExchangeProbe.class.getName(), "serve", "0")).redirectErrorStream(true).start();
    try {
      BufferedReader out = new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8));
      String line;
      while ((line = out.readLine()) != null && !line.startsWith("listening on ")) {
        // logging of the child before it listens
      }
      assertThat(line).as("the child probe's announcement").isNotNull();
      int port = Integer.parseInt(line.substring("listening on ".length()).trim());
      ExchangeProbe.Result r = ExchangeProbe.send("127.0.0.1:" + port, chunks, ExchangeConfig.defaults());
      System.out.println("exchange loopback, to another process: " + r);
      return r;
    } finally {
      child.destroy();
      child.waitFor(10, TimeUnit.SECONDS);
    }
  }
}
