package dev.tide.stream.exchange;

import dev.tide.proto.exchange.ExchangeRequest;
import dev.tide.proto.exchange.ExchangeServiceGrpc;
import dev.tide.proto.exchange.PermitGrant;
import dev.tide.stream.actor.Outbox;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.ServerCallStreamObserver;
import io.grpc.stub.StreamObserver;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadFactory;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The receiving end of remote exchange links: the {@code ExchangeService} a compute node serves.
 * Each link (one gRPC stream, opened by the sender) delivers into the downstream actor's local
 * {@link Outbox} (its input {@code Channel}, resolved by (upstream actor, downstream actor) the way
 * local links are), so the downstream actor reads it unchanged.
 *
 * <p>Per link: gRPC's thread only checks the permit and queues the request (never blocks); a
 * delivery thread decodes it and sends it into the channel, blocking while the channel is full, and
 * returns the permit once the message is in the channel, in grants of {@code grantBatchMessages}.
 * The queue never holds more than the window, so a link holds at most {@code windowMessages} messages
 * outside the channel.
 *
 * <p>The link ends when the sender half-closes (after delivering everything, the receiver completes
 * the stream), when the sender's side fails or cancels (undelivered messages are dropped, the
 * {@link LinkListener} is told), or when this node closes it ({@link #closeLinksTo}, {@link #close}).
 *
 * <p>Thread-safety: gRPC callbacks of one link are serialized by gRPC; the delivery thread and
 * {@link #closeLinksTo}/{@link #close} share each link's state under the link's monitor.
 */
public final class ExchangeReceiver extends ExchangeServiceGrpc.ExchangeServiceImplBase implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(ExchangeReceiver.class);
  /** Queued after the last data message when the sender half-closes. */
  private static final ExchangeRequest END = ExchangeRequest.getDefaultInstance();

  /** The input of a downstream actor for messages from one upstream actor. */
  @FunctionalInterface
  public interface InboxResolver {
    /**
     * @throws RuntimeException if this node cannot take the link (the sender sees the message)
     */
    Outbox inbox(long upActorId, long downActorId);
  }

  /** Told when a link ends without the sender closing it. */
  @FunctionalInterface
  public interface LinkListener {
    void linkFailed(long upActorId, long downActorId, Throwable cause);
  }

  private record LinkId(long up, long down) {}

  private final InboxResolver resolver;
  private final ExchangeConfig config;
  private final ThreadFactory threads;
  private final LinkListener listener;
  private final ConcurrentHashMap<LinkId, Link> links = new ConcurrentHashMap<>();

  /**
   * @param threads makes one delivery thread per link (daemon threads are expected)
   */
  public ExchangeReceiver(InboxResolver resolver, ExchangeConfig config, ThreadFactory threads, LinkListener listener) {
    this.resolver = resolver;
    this.config = config;
    this.threads = threads;
    this.listener = listener;
  }

  /** A receiver with daemon delivery threads named {@code exchange-in-<up>-<down>} that logs failed links. */
  public ExchangeReceiver(InboxResolver resolver, ExchangeConfig config) {
    this(resolver, config, r -> {
      Thread t = new Thread(r);
      t.setDaemon(true);
      return t;
    }, (up, down, cause) -> LOG.warn("exchange link {} -> {} failed: {}", up, down, cause.toString()));
  }

  @Override
  public StreamObserver<ExchangeRequest> exchange(StreamObserver<PermitGrant> responses) {
    return new Link((ServerCallStreamObserver<PermitGrant>) responses);
  }

  /** Messages queued on the link and not yet in its channel, or -1 if there is no such link (status, tests). */
  public int pending(long upActorId, long downActorId) {
    Link l = links.get(new LinkId(upActorId, downActorId));
    return l == null ? -1 : l.queue.size();
  }

  /** Number of open links. */
  public int linkCount() {
    return links.size();
  }

  /** Ends every link into these actors (they stopped): the senders see the link broken. */
  public void closeLinksTo(Set<Long> downActorIds) {
    List<Link> closing = new ArrayList<>();
    links.forEach((id, l) -> {
      if (downActorIds.contains(id.down())) {
        closing.add(l);
      }
    });
    closing.forEach(l -> l.fail(Status.UNAVAILABLE.withDescription("downstream actor " + l.id.down() + " stopped"), false));
  }

  /**
   * Stops delivering on every open link without ending it (this node is reset for recovery): queued
   * messages are dropped and no more permits are granted, so senders block rather than fail; each
   * call ends when its sender ends it. Why not fail them: recovery resets every node before it
   * rebuilds any, so the senders are about to be reset too, and a failure they reported now would
   * arrive after the recovery and start another one.
   */
  public void detachAll() {
    new ArrayList<>(links.values()).forEach(Link::detach);
  }

  /** Ends every link with an error to its sender (node shutdown). */
  @Override
  public void close() {
    new ArrayList<>(links.values()).forEach(l -> l.fail(Status.UNAVAILABLE.withDescription("receiving node closing"), false));
  }

  /** One link: the request observer gRPC calls, and the delivery loop. */
  private final class Link implements StreamObserver<ExchangeRequest>, Runnable {
    private final ServerCallStreamObserver<PermitGrant> responses;
    private final BlockingQueue<ExchangeRequest> queue;
    private LinkId id;
    private Outbox inbox;
    private long received; // data messages, gRPC thread only
    private volatile long granted; // permits granted in total; written by gRPC thread once, then the delivery thread
    // Written under this; ended is read without it to drop requests that race with the end.
    private volatile boolean ended;
    private volatile boolean detached;
    private volatile boolean halfClosed;
    private boolean completed; // guarded by this
    private Thread delivery;

    Link(ServerCallStreamObserver<PermitGrant> responses) {
      this.responses = responses;
      this.queue = new ArrayBlockingQueue<>(config.windowMessages() + 1);
    }

    @Override
    public void onNext(ExchangeRequest request) {
      if (ended) {
        return;
      }
      if (id == null) {
        open(request);
        return;
      }
      if (++received > granted) {
        fail(Status.RESOURCE_EXHAUSTED.withDescription("link " + id.up() + " -> " + id.down() + " sent message " + received
            + " with only " + granted + " permits granted"), true);
        return;
      }
      if (request.getKindCase() == ExchangeRequest.KindCase.OPEN || request.getKindCase() == ExchangeRequest.KindCase.KIND_NOT_SET) {
        fail(Status.INVALID_ARGUMENT.withDescription("link " + id.up() + " -> " + id.down() + ": expected a chunk, a barrier or a watermark,"
            + " got " + request.getKindCase()), true);
        return;
      }
      if (!queue.offer(request)) {
        throw new IllegalStateException("exchange link " + id + ": queue full within the window");
      }
    }

    private void open(ExchangeRequest request) {
      if (!request.hasOpen()) {
        fail(Status.INVALID_ARGUMENT.withDescription("exchange stream must start with an open message, got "
            + request.getKindCase()), true);
        return;
      }
      id = new LinkId(request.getOpen().getUpActorId(), request.getOpen().getDownActorId());
      try {
        inbox = resolver.inbox(id.up(), id.down());
      } catch (RuntimeException e) {
        fail(Status.FAILED_PRECONDITION.withDescription("link " + id.up() + " -> " + id.down() + " refused: " + e.getMessage()),
            true);
        return;
      }
      Link old = links.put(id, this);
      if (old != null) {
        old.fail(Status.ABORTED.withDescription("link " + id.up() + " -> " + id.down() + " reopened"), true);
      }
      Thread t = threads.newThread(this);
      t.setName("exchange-in-" + id.up() + "-" + id.down());
      synchronized (this) {
        if (ended) {
          return;
        }
        delivery = t;
        granted = config.windowMessages();
        responses.onNext(PermitGrant.newBuilder().setPermits(config.windowMessages()).build());
      }
      t.start();
    }

    @Override
    public void onError(Throwable t) {
      boolean wasEnded;
      synchronized (this) {
        wasEnded = ended;
        stop();
      }
      if (!wasEnded && id != null) {
        listener.linkFailed(id.up(), id.down(), t);
      }
    }

    @Override
    public void onCompleted() {
      halfClosed = true;
      if (detached) {
        complete();
        return;
      }
      if (id != null && !queue.offer(END)) {
        throw new IllegalStateException("exchange link " + id + ": no room for the end marker");
      }
      if (id == null) {
        fail(Status.INVALID_ARGUMENT.withDescription("exchange stream ended before its open message"), true);
      }
    }

    /** Delivery loop: decode, send into the channel (may block), return permits. */
    @Override
    public void run() {
      int owed = 0;
      try {
        while (true) {
          ExchangeRequest r = queue.take();
          if (r == END) {
            synchronized (this) {
              if (!ended) {
                ended = true;
                links.remove(id, this);
                complete();
              }
            }
            return;
          }
          Object message;
          try {
            message = ChunkCodec.fromRequest(r);
          } catch (IllegalArgumentException e) {
            fail(Status.INVALID_ARGUMENT.withDescription("link " + id.up() + " -> " + id.down() + ": " + e.getMessage()), true);
            return;
          }
          inbox.send(message);
          if (++owed >= config.grantBatchMessages()) {
            synchronized (this) {
              if (ended) {
                return;
              }
              granted += owed;
              responses.onNext(PermitGrant.newBuilder().setPermits(owed).build());
            }
            owed = 0;
          }
        }
      } catch (InterruptedException e) {
        // the link ended while delivery waited: drop what is queued
      } catch (RuntimeException e) {
        // A grant on a call the sender just cancelled throws; its onError follows and says why.
        String link = "link " + id.up() + " -> " + id.down();
        fail(responses.isCancelled() ? Status.CANCELLED.withDescription(link + " cancelled by the sender")
            : Status.INTERNAL.withDescription(link + ": delivery failed: " + e), true);
      }
    }

    /** Stops delivery but leaves the call open until the sender ends it (see {@link #detachAll}). */
    void detach() {
      synchronized (this) {
        if (ended) {
          return;
        }
        detached = true;
        stop();
      }
      if (halfClosed) {
        complete(); // the sender's end came before the detach; its end marker was dropped with the queue
      }
    }

    /** Completes the call once (the sender half-closed it). */
    private synchronized void complete() {
      if (completed) {
        return;
      }
      completed = true;
      try {
        responses.onCompleted();
      } catch (IllegalStateException | StatusRuntimeException e) {
        // the call is already closed
      }
    }

    /** Ends the link with an error status to the sender; {@code notify} tells the listener. */
    void fail(Status status, boolean notify) {
      synchronized (this) {
        if (ended) {
          return;
        }
        stop();
        try {
          responses.onError(status.asRuntimeException());
        } catch (IllegalStateException | StatusRuntimeException e) {
          // the call is already closed (the sender went away at the same time)
        }
      }
      if (id != null) {
        if (notify) {
          listener.linkFailed(id.up(), id.down(), status.asRuntimeException());
        }
        LOG.debug("exchange link {} -> {} ended: {}", id.up(), id.down(), status);
      }
    }

    /** Marks the link ended, unregisters it and stops delivery. Caller holds this. */
    private void stop() {
      ended = true;
      if (id != null) {
        links.remove(id, this);
      }
      queue.clear();
      if (delivery != null && delivery != Thread.currentThread()) {
        delivery.interrupt();
      }
    }
  }
}
