package dev.tide.stream.actor;

import dev.tide.common.chunk.StreamChunk;
import dev.tide.common.time.Clock;
import java.util.List;
import java.util.concurrent.locks.LockSupport;

/**
 * One parallel instance of a fragment: a tree of operators on its own thread, fed by channels from
 * upstream actors (or by a source), writing to dispatchers.
 *
 * <p>Barrier alignment: after an input channel delivers a barrier it is not read again until every
 * input has delivered the same barrier. Then operators see {@code onBarrier} leaves first, the
 * barrier goes to every dispatcher, and the node's {@link BarrierListener} is told. A barrier whose
 * Stop mutation names this actor ends it after it has been forwarded.
 *
 * <p>Thread-safety: everything but {@link #stop} runs on the actor thread.
 */
public final class Actor implements Runnable {
  /** Where an actor reports barriers it has passed and failures. */
  public interface BarrierListener {
    void collected(long actorId, Barrier barrier);

    void failed(long actorId, Throwable error);
  }

  /** An operator in the actor's tree: its parent's index (-1 for the root) and its side there. */
  public record Node(Operator operator, int parent, int side) {}

  /** An input channel and the index of the leaf node (a merge) it feeds. */
  public record Input(Channel channel, int leaf, long upstreamActorId) {}

  private final long actorId;
  private final List<Node> nodes;
  private final Operator.Emitter[] emitters;
  private final List<Input> inputs;
  private final int sourceLeaf;
  private final Channel barrierInbox;
  private final List<Dispatcher> dispatchers;
  private final BarrierListener listener;
  private final Clock clock;
  private volatile Thread thread;
  private volatile boolean stopping;

  private boolean[] blocked;
  private int blockedCount;
  private Barrier pending;
  private int roundRobin;
  private int deliveredLeaf;

  /**
   * @param nodes operators in topological order (children before parents); the last is the root
   * @param sourceLeaf index of the source node, or -1 for an actor fed by {@code inputs}
   * @param barrierInbox barriers injected by the node into a source actor (null otherwise)
   */
  public Actor(long actorId, List<Node> nodes, List<Input> inputs, int sourceLeaf, Channel barrierInbox,
      List<Dispatcher> dispatchers, BarrierListener listener, Clock clock) {
    this.actorId = actorId;
    this.nodes = nodes;
    this.inputs = inputs;
    this.sourceLeaf = sourceLeaf;
    this.barrierInbox = barrierInbox;
    this.dispatchers = dispatchers;
    this.listener = listener;
    this.clock = clock;
    this.emitters = new Operator.Emitter[nodes.size()];
    for (int i = nodes.size() - 1; i >= 0; i--) {
      Node n = nodes.get(i);
      if (n.parent() < 0) {
        emitters[i] = this::dispatch;
      } else {
        Operator parent = nodes.get(n.parent()).operator();
        Operator.Emitter parentOut = emitters[n.parent()];
        int side = n.side();
        emitters[i] = c -> parent.process(side, c, parentOut);
      }
    }
    this.blocked = new boolean[inputs.size()];
  }

  public long actorId() {
    return actorId;
  }

  private void dispatch(StreamChunk chunk) throws InterruptedException {
    if (chunk.size() == 0) {
      return;
    }
    for (Dispatcher d : dispatchers) {
      d.dispatch(chunk);
    }
  }

  /** Asks the actor to end (recovery, crash); the thread is interrupted. */
  public void stop() {
    stopping = true;
    Thread t = thread;
    if (t != null) {
      t.interrupt();
    }
  }

  @Override
  public void run() {
    thread = Thread.currentThread();
    for (Input in : inputs) {
      in.channel().bindConsumer(thread);
    }
    if (barrierInbox != null) {
      barrierInbox.bindConsumer(thread);
    }
    try {
      for (Node n : nodes) {
        n.operator().open();
      }
      if (sourceLeaf >= 0) {
        runSource();
      } else {
        runMerge();
      }
    } catch (InterruptedException e) {
      if (!stopping) {
        listener.failed(actorId, e);
      }
    } catch (Throwable t) {
      if (!stopping) {
        listener.failed(actorId, t);
      }
    } finally {
      for (Node n : nodes) {
        try {
          n.operator().close();
        } catch (RuntimeException ignored) {
          // closing is best effort; the failure that matters was reported above
        }
      }
    }
  }

  private void runSource() throws InterruptedException {
    SourceOperator source = (SourceOperator) nodes.get(sourceLeaf).operator();
    while (!stopping) {
      Object m = barrierInbox.poll();
      if (m != null) {
        if (onBarrier((Barrier) m)) {
          return;
        }
        continue;
      }
      long now = clock.nanoTime();
      StreamChunk c = source.next(now);
      if (c != null) {
        emitters[sourceLeaf].emit(c);
        continue;
      }
      long wait = source.nanosUntilReady(now);
      if (wait == Long.MAX_VALUE) {
        LockSupport.park(this);
      } else if (wait > 0) {
        LockSupport.parkNanos(this, wait);
      }
      if (Thread.interrupted()) {
        throw new InterruptedException();
      }
    }
  }

  private void runMerge() throws InterruptedException {
    while (!stopping) {
      Object m = nextInput();
      if (m instanceof StreamChunk c) {
        Node leaf = nodes.get(deliveredLeaf);
        leaf.operator().process(0, c, emitters[deliveredLeaf]);
      } else if (onBarrier((Barrier) m)) {
        return;
      }
    }
  }

  /** The next chunk (its leaf in {@link #deliveredLeaf}) or the next aligned barrier. */
  private Object nextInput() throws InterruptedException {
    int n = inputs.size();
    while (true) {
      boolean any = false;
      for (int k = 0; k < n; k++) {
        int idx = (roundRobin + k) % n;
        if (blocked[idx]) {
          continue;
        }
        Object m = inputs.get(idx).channel().poll();
        if (m == null) {
          continue;
        }
        any = true;
        roundRobin = idx + 1;
        if (m instanceof Barrier b) {
          if (pending == null) {
            pending = b;
          } else if (pending.currEpoch() != b.currEpoch()) {
            throw new IllegalStateException("actor " + actorId + " got barrier of epoch " + b.currEpoch() + " from actor "
                + inputs.get(idx).upstreamActorId() + " while aligning epoch " + pending.currEpoch());
          }
          blocked[idx] = true;
          if (++blockedCount == n) {
            Barrier aligned = pending;
            pending = null;
            blockedCount = 0;
            java.util.Arrays.fill(blocked, false);
            return aligned;
          }
          continue;
        }
        deliveredLeaf = inputs.get(idx).leaf();
        return m;
      }
      if (!any) {
        LockSupport.park(this);
        if (Thread.interrupted()) {
          throw new InterruptedException();
        }
      }
    }
  }

  /** Passes a barrier through the operators and on; returns true if the actor must end. */
  private boolean onBarrier(Barrier b) throws InterruptedException {
    for (int i = 0; i < nodes.size(); i++) {
      nodes.get(i).operator().onBarrier(b, emitters[i]);
    }
    for (Dispatcher d : dispatchers) {
      d.barrier(b);
    }
    listener.collected(actorId, b);
    return b.stops(actorId);
  }
}
