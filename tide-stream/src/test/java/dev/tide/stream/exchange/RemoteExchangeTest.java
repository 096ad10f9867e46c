package dev.tide.stream.exchange;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tide.common.chunk.ChunkBuilder;
import dev.tide.common.chunk.LongColumn;
import dev.tide.common.chunk.Op;
import dev.tide.common.chunk.StreamChunk;
import dev.tide.common.hash.VnodeHasher;
import dev.tide.common.types.DataType;
import dev.tide.proto.exchange.ExchangeRequest;
import dev.tide.proto.exchange.OpenLink;
import dev.tide.proto.exchange.PermitGrant;
import dev.tide.stream.actor.Barrier;
import dev.tide.stream.actor.Channel;
import dev.tide.stream.actor.Dispatcher;
import dev.tide.stream.actor.Outbox;
import io.grpc.stub.StreamObserver;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Remote exchange links between two compute nodes' exchange servers on loopback (Netty gRPC, one
 * JVM): order and integrity of chunks and barriers in both directions, bounded memory under a
 * consumer that does not read (backpressure reaches the sending thread), and failures surfacing to
 * the sender. Waits are for conditions, never for time.
 */
class RemoteExchangeTest {
  private static final Duration WAIT = Duration.ofSeconds(30);
  private final List<AutoCloseable> closing = new ArrayList<>();

  @AfterEach
  void tearDown() throws Exception {
    for (AutoCloseable c : closing) {
      c.close();
    }
  }

  private LoopbackNode node(String name, int channelCapacity, ExchangeConfig config) throws Exception {
    LoopbackNode n = new LoopbackNode(name, channelCapacity, config);
    closing.add(n);
    return n;
  }

  @Test
  void chunksAndBarriersArriveInOrderAndIntactBothWays() throws Exception {
    ExchangeConfig config = new ExchangeConfig(16, 4, 64 << 20);
    LoopbackNode a = node("A", 4, config);
    LoopbackNode b = node("B", 4, config);
    List<Object> aToB = messages(11, 150);
    List<Object> bToA = messages(12, 150);

    CompletableFuture<Void> sendAB = sendAll(a.open(b, 1, 2), aToB);
    CompletableFuture<Void> sendBA = sendAll(b.open(a, 3, 4), bToA);
    List<Object> atB = receive(b.channels.channel(1, 2), aToB.size());
    List<Object> atA = receive(a.channels.channel(3, 4), bToA.size());
    sendAB.get(30, TimeUnit.SECONDS);
    sendBA.get(30, TimeUnit.SECONDS);

    assertSameMessages(atB, aToB);
    assertSameMessages(atA, bToA);
    await().atMost(WAIT).until(() -> a.receiver.linkCount() == 0 && b.receiver.linkCount() == 0);
  }

  @Test
  void slowConsumerBlocksTheSenderWithinWindowPlusChannelCapacity() throws Exception {
    int window = 4;
    int capacity = 3;
    int total = 100;
    LoopbackNode a = node("A", capacity, new ExchangeConfig(window, 2, 64 << 20));
    LoopbackNode b = node("B", capacity, new ExchangeConfig(window, 2, 64 << 20));
    RemoteOutput out = a.open(b, 1, 2);
    Channel inbox = b.channels.channel(1, 2);
    Thread[] sender = new Thread[1];
    CompletableFuture<Void> sent = async(() -> {
      sender[0] = Thread.currentThread();
      for (int i = 0; i < total; i++) {
        out.send(single(i));
      }
      out.close();
    });

    // Nobody reads: the channel fills (3), delivery holds one message, the receiver queues the rest of
    // the window, grants stop, and the sender parks with no permit. Returned permits: 2 (one batch of
    // the 3 delivered), so exactly window + 2 = 6 messages left the sender.
    await().atMost(WAIT).until(() -> sender[0] != null && sender[0].getState() == Thread.State.WAITING
        && out.permits() == 0 && inbox.size() == capacity && b.receiver.pending(1, 2) == 2 && out.messagesSent() == 6);
    assertThat(out.messagesSent()).isLessThanOrEqualTo(window + capacity);
    assertThat(out.messagesSent() - inbox.size()).as("outside the channel").isLessThanOrEqualTo(window);
    assertThat(sent).isNotDone();

    // The consumer reads: the sender resumes, and at no point is more in flight or queued than the bound.
    inbox.bindConsumer(Thread.currentThread());
    long taken = 0;
    while (taken < total) {
      Object m = inbox.poll();
      if (m == null) {
        LockSupport.parkNanos(1_000_000);
        continue;
      }
      assertThat(((LongColumn) ((StreamChunk) m).column(0)).getLong(0)).isEqualTo(taken);
      taken++;
      assertThat(out.messagesSent() - taken).as("in flight + queued after %d taken", taken)
          .isLessThanOrEqualTo(window + capacity);
    }
    sent.get(30, TimeUnit.SECONDS);
    assertThat(out.messagesSent()).isEqualTo(total);
    assertThat(inbox.poll()).isNull();
  }

  @Test
  void brokenStreamFailsTheBlockedSender() throws Exception {
    ExchangeConfig config = new ExchangeConfig(2, 1, 64 << 20);
    LoopbackNode a = node("A", 2, config);
    LoopbackNode b = node("B", 2, config);
    RemoteOutput out = a.open(b, 1, 2);
    CompletableFuture<Void> sending = async(() -> {
      for (int i = 0; ; i++) {
        out.send(single(i));
      }
    });
    await().atMost(WAIT).until(() -> out.permits() == 0 && b.channels.channel(1, 2).size() == 2 && b.receiver.pending(1, 2) == 1);

    b.kill();

    ExecutionException failure = catchExecution(sending);
    assertThat(failure.getCause()).isInstanceOf(ExchangeException.class)
        .hasMessageStartingWith("exchange link actor 1 -> actor 2 on B is broken after")
        .hasMessageMatching("(?s).*(UNAVAILABLE|CANCELLED).*");
  }

  @Test
  void refusedLinkFailsTheFirstSend() throws Exception {
    ExchangeConfig config = ExchangeConfig.defaults();
    LoopbackNode a = node("A", 4, config);
    LoopbackNode b = new LoopbackNode("B", 4, config, (up, down) -> {
      throw new IllegalArgumentException("no actor " + down + " on B");
    });
    closing.add(b);
    RemoteOutput out = a.open(b, 1, 99);
    ExecutionException failure = catchExecution(sendAll(out, List.of(single(0))));
    assertThat(failure.getCause()).isInstanceOf(ExchangeException.class)
        .hasMessageContaining("actor 1 -> actor 99 on B is broken")
        .hasMessageContaining("FAILED_PRECONDITION (link 1 -> 99 refused: no actor 99 on B)");
  }

  @Test
  void receiverClosingTheLinkFailsTheSender() throws Exception {
    ExchangeConfig config = new ExchangeConfig(2, 1, 64 << 20);
    LoopbackNode a = node("A", 2, config);
    LoopbackNode b = node("B", 2, config);
    RemoteOutput out = a.open(b, 5, 6);
    CompletableFuture<Void> sending = sendAll(out, messages(3, 50));
    await().atMost(WAIT).until(() -> out.permits() == 0 && b.receiver.pending(5, 6) == 1);

    b.receiver.closeLinksTo(Set.of(6L));

    assertThat(catchExecution(sending).getCause()).isInstanceOf(ExchangeException.class)
        .hasMessageContaining("UNAVAILABLE (downstream actor 6 stopped)");
    assertThat(b.receiver.linkCount()).isZero();
  }

  @Test
  void senderExceedingItsPermitsIsCutOff() throws Exception {
    // Channel of one and grant batch of two: nothing is granted back while the test sends window + 1.
    LoopbackNode a = node("A", 1, new ExchangeConfig(2, 2, 64 << 20));
    LoopbackNode b = node("B", 1, new ExchangeConfig(2, 2, 64 << 20));
    CompletableFuture<Void> closed = new CompletableFuture<>();
    StreamObserver<ExchangeRequest> raw = a.dial(b).exchange(new StreamObserver<PermitGrant>() {
      @Override
      public void onNext(PermitGrant grant) {}

      @Override
      public void onError(Throwable t) {
        closed.completeExceptionally(t);
      }

      @Override
      public void onCompleted() {
        closed.complete(null);
      }
    });
    raw.onNext(ExchangeRequest.newBuilder().setOpen(OpenLink.newBuilder().setUpActorId(1).setDownActorId(2)).build());
    for (int i = 0; i < 3; i++) {
      raw.onNext(ChunkCodec.toRequest(single(i)));
    }
    assertThat(catchExecution(closed).getCause()).hasMessageContaining("RESOURCE_EXHAUSTED")
        .hasMessageContaining("link 1 -> 2 sent message 3 with only 2 permits granted");
    await().atMost(WAIT).until(() -> b.receiver.linkCount() == 0);
  }

  /**
   * A hash dispatcher writing to two remote actors: masked chunks cross the wire with visibility
   * applied, every row reaches the owner of its vnode, the barrier reaches both.
   */
  @Test
  void hashDispatcherFeedsRemoteActors() throws Exception {
    ExchangeConfig config = ExchangeConfig.defaults();
    LoopbackNode a = node("A", 4, config);
    LoopbackNode b = node("B", 4, config);
    int vnodes = 16;
    int[] owner = new int[vnodes];
    for (int v = 0; v < vnodes; v++) {
      owner[v] = v % 2;
    }
    RemoteOutput to10 = a.open(b, 1, 10);
    RemoteOutput to11 = a.open(b, 1, 11);
    Dispatcher d = new Dispatcher.Hash(new Outbox[] {to10, to11}, new int[] {0}, owner);
    RandomChunks gen = new RandomChunks(7);
    List<Object[]> all = new ArrayList<>();
    int chunks = 20;
    for (int i = 0; i < chunks; i++) {
      DataType[] types = {DataType.BIGINT, DataType.VARCHAR, DataType.DOUBLE};
      StreamChunk c = gen.chunk(types, 1 + gen.random().nextInt(200));
      all.addAll(c.visibleRows());
      d.dispatch(c);
    }
    d.barrier(new Barrier(2, 1, null, 0));

    VnodeHasher hasher = new VnodeHasher();
    List<Object[]> arrived = new ArrayList<>();
    for (int o = 0; o < 2; o++) {
      Channel in = b.channels.channel(1, 10 + o);
      in.bindConsumer(Thread.currentThread());
      while (true) {
        Object m = take(in);
        if (m instanceof Barrier barrier) {
          assertThat(barrier.currEpoch()).isEqualTo(2);
          break;
        }
        StreamChunk c = (StreamChunk) m;
        assertThat(c.visibility()).isNull();
        for (Object[] row : c.visibleRows()) {
          assertThat(owner[hasher.vnode(new Object[] {row[0]}, vnodes)]).as("owner of key %s", row[0]).isEqualTo(o);
          arrived.add(row);
        }
      }
    }
    assertThat(arrived).containsExactlyInAnyOrderElementsOf(all);
    to10.close();
    to11.close();
  }

  // ------------------------------------------------------------------ helpers

  private static Object take(Channel c) throws InterruptedException {
    while (true) {
      Object m = c.poll();
      if (m != null) {
        return m;
      }
      LockSupport.parkNanos(1_000_000);
      if (Thread.interrupted()) {
        throw new InterruptedException();
      }
    }
  }

  private static StreamChunk single(long v) {
    ChunkBuilder b = new ChunkBuilder(new DataType[] {DataType.BIGINT}, 1);
    return b.appendRow(Op.INSERT.code(), new Object[] {v});
  }

  /** Random chunks with a barrier after every tenth. */
  private static List<Object> messages(long seed, int n) {
    RandomChunks gen = new RandomChunks(seed);
    List<Object> out = new ArrayList<>();
    long epoch = 1;
    for (int i = 0; i < n; i++) {
      if (i % 10 == 9) {
        out.add(new Barrier(epoch + 1, epoch, null, i));
        epoch++;
      } else {
        out.add(gen.chunk());
      }
    }
    return out;
  }

  private static CompletableFuture<Void> sendAll(RemoteOutput out, List<Object> messages) {
    return async(() -> {
      for (Object m : messages) {
        out.send(m);
      }
      out.close();
    });
  }

  interface Body {
    void run() throws Exception;
  }

  /** Runs on a thread of its own, as an actor does (blocking sends must not occupy a shared pool). */
  static CompletableFuture<Void> async(Body body) {
    CompletableFuture<Void> f = new CompletableFuture<>();
    Thread t = new Thread(() -> {
      try {
        body.run();
        f.complete(null);
      } catch (Throwable e) {
        f.completeExceptionally(e);
      }
    }, "test-sender");
    t.setDaemon(true);
    t.start();
    return f;
  }

  private static List<Object> receive(Channel c, int n) throws InterruptedException {
    List<Object> got = new ArrayList<>();
    while (got.size() < n) {
      got.add(take(c));
    }
    return got;
  }

  private static void assertSameMessages(List<Object> actual, List<Object> expected) {
    assertThat(actual).hasSameSizeAs(expected);
    for (int i = 0; i < expected.size(); i++) {
      Object e = expected.get(i);
      Object a = actual.get(i);
      if (e instanceof Barrier eb) {
        assertThat(a).as("message %d", i).isInstanceOf(Barrier.class);
        assertThat(((Barrier) a).currEpoch()).isEqualTo(eb.currEpoch());
        assertThat(((Barrier) a).prevEpoch()).isEqualTo(eb.prevEpoch());
        assertThat(((Barrier) a).injectTimeMs()).isEqualTo(eb.injectTimeMs());
      } else {
        assertThat(a).as("message %d", i).isInstanceOf(StreamChunk.class);
        ChunkCodecPropertyTest.assertSameVisibleRows((StreamChunk) a, (StreamChunk) e, i);
      }
    }
  }

  private static ExecutionException catchExecution(CompletableFuture<?> f) throws Exception {
    try {
      f.get(30, TimeUnit.SECONDS);
    } catch (ExecutionException e) {
      return e;
    }
    throw new AssertionError("expected the sender to fail");
  }
}
