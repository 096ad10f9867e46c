package dev.tide.stream.exchange;

import dev.tide.common.chunk.ChunkBuilder;
import dev.tide.common.chunk.Op;
import dev.tide.common.chunk.StreamChunk;
import dev.tide.stream.nexmark.NexmarkConfig;
import dev.tide.stream.nexmark.NexmarkGenerator;
import dev.tide.stream.nexmark.NexmarkTable;
import io.grpc.Server;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Measures records per second through one exchange link between two processes (or two ends in one):
 * a receiving end that counts rows as they reach its (infinitely fast) downstream channel, and a
 * sending end pushing 1024-row chunks of the Nexmark bid stream through a {@link RemoteOutput}, as
 * an upstream actor's dispatcher does. What it measures: encoding, gRPC over the transport, permit
 * flow control and decoding; not operators.
 *
 * <pre>
 * java -cp ... dev.tide.stream.exchange.ExchangeProbe serve PORT        # prints "listening on PORT"
 * java -cp ... dev.tide.stream.exchange.ExchangeProbe send HOST:PORT CHUNKS   # prints records/s
 * </pre>
 */
public final class ExchangeProbe {
  private ExchangeProbe() {}

  /** The receiving end: an exchange server on a port whose links deliver into a row counter. */
  public static final class Receiver implements AutoCloseable {
    private final AtomicLong rows = new AtomicLong();
    private final ExchangeReceiver receiver;
    private final Server server;

    private final java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);

    private Receiver(InetSocketAddress bind, ExchangeConfig config, boolean stall) throws IOException {
      this.receiver = new ExchangeReceiver((up, down) -> message -> {
        if (stall) {
          release.await(); // a downstream that never reads: the link's permits run out
        }
        if (message instanceof StreamChunk c) {
          rows.addAndGet(c.size());
        }
      }, config);
      this.server = NettyServerBuilder.forAddress(bind).addService(receiver).maxInboundMessageSize(config.maxMessageBytes())
          .build().start();
    }

    public int port() {
      return server.getPort();
    }

    /** Rows received so far, over all links. */
    public long rows() {
      return rows.get();
    }

    @Override
    public void close() throws InterruptedException {
      release.countDown();
      receiver.close();
      server.shutdownNow();
      server.awaitTermination(10, TimeUnit.SECONDS);
    }
  }

  public static Receiver serve(InetSocketAddress bind, ExchangeConfig config) throws IOException {
    return new Receiver(bind, config, false);
  }

  /** What one send measured. */
  public record Result(long rows, long bytes, long nanos) {
    public double recordsPerSecond() {
      return rows * 1e9 / nanos;
    }

    public double megabytesPerSecond() {
      return bytes * 1e3 / nanos;
    }

    @Override
    public String toString() {
      return String.format("%,d records in %.2f s: %,.0f records/s, %,.0f MB/s", rows, nanos / 1e9, recordsPerSecond(),
          megabytesPerSecond());
    }
  }

  /**
   * Sends {@code chunks} bid chunks over one link to {@code address} and waits until the receiver
   * has delivered all of them; the time runs from the first send to that point.
   */
  public static Result send(String address, int chunks, ExchangeConfig config) throws InterruptedException {
    StreamChunk[] data = bidChunks(64);
    long bytesPerChunk = ChunkCodec.encode(data[0]).length;
    try (ExchangeClient client = ExchangeClient.plaintext(config)) {
      RemoteOutput out = client.open(address, 1, 2);
      long rows = 0;
      long start = System.nanoTime();
      for (int i = 0; i < chunks; i++) {
        StreamChunk c = data[i % data.length];
        out.send(c);
        rows += c.size();
      }
      out.close();
      if (!out.awaitDelivered(TimeUnit.MINUTES.toNanos(5))) {
        throw new IllegalStateException("exchange probe to " + address + ": the receiver did not confirm delivery of " + chunks
            + " chunks");
      }
      return new Result(rows, bytesPerChunk * chunks, System.nanoTime() - start);
    }
  }

  /** Chunks of 1024 Nexmark bid rows. */
  public static StreamChunk[] bidChunks(int count) {
    NexmarkGenerator g = new NexmarkGenerator(NexmarkConfig.defaults());
    ChunkBuilder b = new ChunkBuilder(NexmarkTable.BID.schema().types(), StreamChunk.DEFAULT_CAPACITY);
    StreamChunk[] out = new StreamChunk[count];
    long k = 0;
    for (int i = 0; i < count; ) {
      g.appendRow(NexmarkTable.BID, k++, b);
      StreamChunk c = b.finishRow(Op.INSERT.code());
      if (c != null) {
        out[i++] = c;
      }
    }
    return out;
  }

  public static void main(String[] args) throws Exception {
    String usage = "usage: ExchangeProbe serve PORT [stall] | ExchangeProbe send HOST:PORT CHUNKS";
    if ((args.length == 2 || args.length == 3 && args[2].equals("stall")) && args[0].equals("serve")) {
      Receiver r = new Receiver(new InetSocketAddress("127.0.0.1", Integer.parseInt(args[1])), ExchangeConfig.defaults(),
          args.length == 3);
      System.out.println("listening on " + r.port());
      Runtime.getRuntime().addShutdownHook(new Thread(() -> System.out.println("received " + r.rows() + " rows")));
      Thread.currentThread().join();
    } else if (args.length == 3 && args[0].equals("send")) {
      System.out.println("exchange probe: " + send(args[1], Integer.parseInt(args[2]), ExchangeConfig.defaults()));
    } else {
      System.err.println(usage);
      System.exit(2);
    }
  }
}
