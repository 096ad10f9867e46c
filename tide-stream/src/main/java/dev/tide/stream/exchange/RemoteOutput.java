package dev.tide.stream.exchange;

import dev.tide.proto.exchange.ExchangeRequest;
import dev.tide.proto.exchange.ExchangeServiceGrpc;
import dev.tide.proto.exchange.OpenLink;
import dev.tide.proto.exchange.PermitGrant;
import dev.tide.stream.actor.LoadMeter;
import dev.tide.stream.actor.Outbox;
import io.grpc.Context;
import io.grpc.Status;
import io.grpc.stub.ClientCallStreamObserver;
import io.grpc.stub.ClientResponseObserver;

/**
 * The sending end of one remote exchange link (upstream actor on this node → downstream actor on
 * another): an {@link Outbox} that a dispatcher writes to as it would to a local channel.
 *
 * <p>{@link #send} encodes the message, takes one permit and writes it to the link's gRPC stream; with
 * no permit left it blocks the calling (actor) thread until the receiver grants more, which it does
 * as the downstream channel takes messages. So this end never holds more than the one message being
 * sent, and gRPC's buffers never more than the window. A broken link (error status, receiver gone,
 * receiver ended the stream) makes the blocked or next {@code send} throw {@link ExchangeException}.
 *
 * <p>Thread-safety: {@link #send} and {@link #close} belong to one thread (the actor's); {@link #abort},
 * {@link #permits} and {@link #messagesSent} may be called from any thread. gRPC callbacks update the
 * permits under {@code lock}; calls on the gRPC stream are made under {@code callLock}, never while
 * holding {@code lock}.
 */
public final class RemoteOutput implements Outbox, AutoCloseable {
  private final long upActorId;
  private final long downActorId;
  private final String peer;
  private final Object lock = new Object();
  /** Serializes use of the gRPC call, which is not thread-safe, between the actor thread and {@link #abort}. */
  private final Object callLock = new Object();
  private final ClientCallStreamObserver<ExchangeRequest> requests;
  private boolean cancelled; // guarded by callLock

  // Guarded by lock.
  private int permits;
  private long sent;
  private Throwable failure;
  private boolean closed;
  private boolean ended; // the receiver completed the call after a close: everything sent was delivered

  private RemoteOutput(long upActorId, long downActorId, String peer, ExchangeServiceGrpc.ExchangeServiceStub stub) {
    this.upActorId = upActorId;
    this.downActorId = downActorId;
    this.peer = peer;
    Grants grants = new Grants();
    // Opened in the root context: the link outlives the RPC (build actors) whose thread may open it,
    // and a call started in that RPC's context would be cancelled when the RPC completes.
    Context previous = Context.ROOT.attach();
    try {
      this.requests = (ClientCallStreamObserver<ExchangeRequest>) stub.exchange(grants);
    } finally {
      Context.ROOT.detach(previous);
    }
    requests.onNext(ExchangeRequest.newBuilder()
        .setOpen(OpenLink.newBuilder().setUpActorId(upActorId).setDownActorId(downActorId)).build());
  }

  /**
   * Opens the link; returns at once. The first {@link #send} waits for the receiver's initial window.
   *
   * @param stub async stub on the channel to the downstream actor's node (one channel per node, shared
   *     by all links to it)
   * @param peer the node's name or address, for error messages
   */
  public static RemoteOutput open(ExchangeServiceGrpc.ExchangeServiceStub stub, String peer, long upActorId, long downActorId) {
    return new RemoteOutput(upActorId, downActorId, peer, stub);
  }

  @Override
  public void send(Object message) throws InterruptedException {
    // Encoded before waiting: the actor thread encodes while permits are on their way.
    ExchangeRequest request = ChunkCodec.toRequest(message);
    synchronized (lock) {
      if (closed) {
        throw new IllegalStateException("send on closed " + this);
      }
      if (permits == 0 && failure == null) {
        long t0 = System.nanoTime();
        while (permits == 0 && failure == null) {
          lock.wait();
        }
        LoadMeter.outputBlocked(System.nanoTime() - t0);
      }
      if (failure != null) {
        throw broken();
      }
      permits--;
      sent++;
    }
    synchronized (callLock) {
      if (cancelled) {
        synchronized (lock) {
          throw broken();
        }
      }
      requests.onNext(request);
    }
  }

  /** Ends the link after the messages sent so far; the receiver delivers them, then completes. */
  @Override
  public void close() {
    synchronized (lock) {
      if (closed) {
        return;
      }
      closed = true;
      if (failure != null) {
        return;
      }
    }
    synchronized (callLock) {
      if (!cancelled) {
        try {
          requests.onCompleted();
        } catch (IllegalStateException e) {
          // the call already ended (its channel was shut down): nothing left to close
        }
      }
    }
  }

  /** Cancels the link (its actor stopped); messages not yet delivered are dropped. Any thread. */
  public void abort(String reason) {
    synchronized (lock) {
      closed = true;
      if (failure == null) {
        failure = Status.CANCELLED.withDescription(reason).asRuntimeException();
      }
      lock.notifyAll();
    }
    synchronized (callLock) {
      if (!cancelled) {
        cancelled = true;
        requests.cancel(reason, null);
      }
    }
  }

  /**
   * After {@link #close}: waits until the receiver has put every message sent into the downstream
   * channel and ended the call. Returns false if the link broke instead or the timeout passed.
   */
  public boolean awaitDelivered(long timeoutNanos) throws InterruptedException {
    long deadline = System.nanoTime() + timeoutNanos;
    synchronized (lock) {
      while (!ended && failure == null) {
        long left = deadline - System.nanoTime();
        if (left <= 0) {
          return false;
        }
        java.util.concurrent.TimeUnit.NANOSECONDS.timedWait(lock, left);
      }
      return ended && failure == null;
    }
  }

  /** Permits left: messages this end may send without blocking. */
  public int permits() {
    synchronized (lock) {
      return permits;
    }
  }

  /** Messages handed to the link so far (each took a permit). */
  public long messagesSent() {
    synchronized (lock) {
      return sent;
    }
  }

  private ExchangeException broken() {
    return new ExchangeException("exchange link actor " + upActorId + " -> actor " + downActorId + " on " + peer
        + " is broken after " + sent + " messages: " + describe(failure), failure);
  }

  private static String describe(Throwable t) {
    Status s = Status.fromThrowable(t);
    return s.getCode() == Status.Code.UNKNOWN && s.getDescription() == null ? String.valueOf(t)
        : s.getCode() + (s.getDescription() == null ? "" : " (" + s.getDescription() + ")");
  }

  @Override
  public String toString() {
    return "RemoteOutput[" + upActorId + " -> " + downActorId + " on " + peer + "]";
  }

  /** Receives permit grants; runs on gRPC's executor. */
  private final class Grants implements ClientResponseObserver<ExchangeRequest, PermitGrant> {
    @Override
    public void beforeStart(ClientCallStreamObserver<ExchangeRequest> stream) {
      // Outbound flow is governed by permits, not by gRPC's readiness.
    }

    @Override
    public void onNext(PermitGrant grant) {
      synchronized (lock) {
        permits += grant.getPermits();
        lock.notifyAll();
      }
    }

    @Override
    public void onError(Throwable t) {
      fail(t);
    }

    @Override
    public void onCompleted() {
      synchronized (lock) {
        if (!closed) {
          fail(Status.UNAVAILABLE.withDescription("the receiver ended the link while it was open").asRuntimeException());
        }
        ended = true;
        lock.notifyAll();
      }
    }

    private void fail(Throwable t) {
      synchronized (lock) {
        if (failure == null) {
          failure = t;
        }
        lock.notifyAll();
      }
    }
  }
}
