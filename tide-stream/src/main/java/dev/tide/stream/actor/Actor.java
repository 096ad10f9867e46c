package dev.tide.stream.actor;

import dev.tide.common.chunk.StreamChunk;
import dev.tide.common.hash.VnodeBitmap;
import dev.tide.common.time.Clock;
import dev.tide.proto.stream.ActorInfo;
import dev.tide.proto.stream.DispatcherInfo;
import dev.tide.proto.stream.MergeInfo;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.locks.LockSupport;

/**
 * One parallel instance of a fragment: a tree of operators on its own thread, fed by channels from
 * upstream actors (or by a source), writing to dispatchers.
 *
 * <p>Barrier alignment: after an input channel delivers a barrier it is not read again until every
 * input has delivered the same barrier. Then operators see {@code onBarrier} leaves first, the
 * barrier goes to every dispatcher, and the node's {@link BarrierListener} is told. An operator
 * that every input reaches may hold an ordinary barrier ({@link Operator#beginBarrier}: an
 * aggregation writing millions of changed groups): the actor then reads the next epoch's input
 * into it and gives it a slice of the held work after each input (all of it when the next barrier
 * is aligned), and passes the barrier on from there once the work is done. The operators above see
 * nothing of the next epoch before the barrier, as every input reaches them through the holder.
 *
 * <p>Reschedules (an Update barrier naming this actor) follow spec online-scaling 9: dispatchers add
 * new outputs before forwarding the barrier and switch to the new outputs and mapping right after;
 * merges swap inputs at the aligned barrier (a newly added upstream's copy of the same barrier is
 * skipped); operators get the new vnodes or splits; a dropped actor ends after forwarding. After
 * its first barrier, and after any barrier that gave it vnodes or splits, an actor reads state only
 * once its node holds what the previous owners wrote before that barrier ({@link
 * Wiring#waitReadable}).
 *
 * <p>Watermarks ({@link Watermark}): a source actor passes on its source's as they rise. An actor
 * fed by channels keeps the latest of each input per column and hands a merge the least over its
 * inputs once every one of them has made one and it rose. A reschedule barrier forgets the inputs'
 * watermarks: an upstream source that gained splits may emit rows below what it promised before,
 * so only watermarks made after the barrier count. What a merge was handed stays valid (it is
 * below every split's position), so it never falls, and an actor fed by channels repeats the
 * watermarks it passed on right after the barrier (a source says its own again).
 *
 * <p>Thread-safety: everything but {@link #stop} runs on the actor thread.
 */
public final class Actor implements Runnable {
  /** Where an actor reports barriers it has passed, the end of its source's input, and failures. */
  public interface BarrierListener {
    /** The actor passed {@code barrier}; {@code load} is what it did since its previous barrier. */
    void collected(long actorId, Barrier barrier, ActorLoad load);

    /**
     * A source actor emitted the last rows of its bounded input, and no barrier has passed it since:
     * only the next barrier commits its final offsets, so it had better come now. Called on the
     * actor thread, at most once per barrier; must not block.
     */
    void sourceEnded(long actorId);

    void failed(long actorId, Throwable error);
  }

  /**
   * What an actor needs from its node to rewire itself. Links are keyed by (upstream actor,
   * downstream actor); asking twice for one gives the same link.
   */
  public interface Wiring {
    /** The channel this actor reads messages of {@code upActor} from. */
    Channel input(long upActor, long downActor);

    /** A dispatcher with its outputs (local channels or remote links, as the downstream actors' placement says). */
    Dispatcher dispatcher(long actorId, DispatcherInfo info);

    /**
     * This actor no longer uses the link (a reschedule removed it, after the barrier that did went
     * through it): the node closes it. Called on the actor thread.
     */
    void release(long upActor, long downActor);

    /**
     * Blocks until this node's store holds every write of the epochs before {@code barrier} to the
     * vnodes and splits actor {@code actorId} owns after it: its previous owners' writes included.
     * Called on the actor thread after the actor passed {@code barrier}.
     */
    void waitReadable(long actorId, Barrier barrier) throws InterruptedException;
  }

  /** An operator in the actor's tree: its parent's index (-1 for the root) and its side there. */
  public record Node(Operator operator, int parent, int side) {}

  /** An input channel, the leaf node (a merge) it feeds, and an epoch whose barrier it must skip (0: none). */
  public static final class Input {
    final Channel channel;
    final int leaf;
    final long upstreamActorId;
    long skipBarrierEpoch;
    /** The latest watermark of this input per column. */
    final Map<Integer, Long> watermarks = new HashMap<>(2);

    public Input(Channel channel, int leaf, long upstreamActorId) {
      this.channel = channel;
      this.leaf = leaf;
      this.upstreamActorId = upstreamActorId;
    }
  }

  private final long actorId;
  private final List<Node> nodes;
  private final Operator.Emitter[] emitters;
  private final List<Input> inputs;
  private final Map<Integer, Integer> mergeLeafByFragment;
  private final int sourceLeaf;
  private final Channel barrierInbox;
  private final List<Dispatcher> dispatchers;
  private final BarrierListener listener;
  private final Wiring wiring;
  private final Clock clock;
  private VnodeBitmap vnodes;
  private List<Integer> splits;
  private volatile Thread thread;
  private volatile boolean stopping;
  private boolean sawBarrier;
  private final LoadMeter meter = new LoadMeter();

  private boolean[] blocked;
  private int blockedCount;
  private Barrier pending;
  /** Per node: every input of the actor reaches it (it may hold a barrier: see Operator#beginBarrier). */
  private final boolean[] mayHold;
  /** A barrier an operator holds (its work goes on between inputs), and that operator's node; null: none. */
  private Barrier held;
  private int heldNode;
  private int roundRobin;
  private Input deliveredInput;
  /** The watermark each merge was last handed, keyed {@code leaf << 32 | column}. */
  private final Map<Long, Long> mergeWatermarks = new HashMap<>();
  /** The watermark last dispatched per output column. */
  private final Map<Integer, Long> dispatchedWatermarks = new HashMap<>();

  /**
   * @param nodes operators in topological order (children before parents); the last is the root
   * @param mergeLeafByFragment upstream fragment id → index of the merge node reading it
   * @param sourceLeaf index of the source node, or -1 for an actor fed by {@code inputs}
   * @param barrierInbox barriers injected by the node into a source actor (null otherwise)
   */
  public Actor(long actorId, List<Node> nodes, List<Input> inputs, Map<Integer, Integer> mergeLeafByFragment, int sourceLeaf,
      Channel barrierInbox, List<Dispatcher> dispatchers, VnodeBitmap vnodes, List<Integer> splits, BarrierListener listener,
      Wiring wiring, Clock clock) {
    this.actorId = actorId;
    this.nodes = nodes;
    this.inputs = new ArrayList<>(inputs);
    this.mergeLeafByFragment = Map.copyOf(mergeLeafByFragment);
    this.sourceLeaf = sourceLeaf;
    this.barrierInbox = barrierInbox;
    this.dispatchers = new ArrayList<>(dispatchers);
    this.vnodes = vnodes;
    this.splits = List.copyOf(splits);
    this.listener = listener;
    this.wiring = wiring;
    this.clock = clock;
    this.emitters = new Operator.Emitter[nodes.size()];
    for (int i = nodes.size() - 1; i >= 0; i--) {
      Node n = nodes.get(i);
      if (n.parent() < 0) {
        emitters[i] = new Operator.Emitter() {
          @Override
          public void emit(StreamChunk chunk) throws InterruptedException {
            dispatch(chunk);
          }

          @Override
          public void watermark(Watermark w) throws InterruptedException {
            dispatchWatermark(w);
          }
        };
      } else {
        Operator parent = nodes.get(n.parent()).operator();
        Operator.Emitter parentOut = emitters[n.parent()];
        int side = n.side();
        emitters[i] = new Operator.Emitter() {
          @Override
          public void emit(StreamChunk chunk) throws InterruptedException {
            parent.process(side, chunk, parentOut);
          }

          @Override
          public void watermark(Watermark w) throws InterruptedException {
            parent.onWatermark(side, w, parentOut);
          }
        };
      }
    }
    this.blocked = new boolean[inputs.size()];
    this.mayHold = new boolean[nodes.size()];
    if (sourceLeaf < 0) {
      // Leaves under each node, children before parents: a node every leaf is under may hold.
      int[] leavesBelow = new int[nodes.size()];
      int leaves = 0;
      for (int i = 0; i < nodes.size(); i++) {
        if (leavesBelow[i] == 0) { // no child added to it: a leaf
          leavesBelow[i] = 1;
          leaves++;
        }
        int parent = nodes.get(i).parent();
        if (parent >= 0) {
          leavesBelow[parent] += leavesBelow[i];
        }
      }
      for (int i = 0; i < nodes.size(); i++) {
        mayHold[i] = leavesBelow[i] == leaves;
      }
    }
  }

  /** Rows read from inputs since the actor started (a source actor: rows its source produced); any thread may call. */
  public long rowsInTotal() {
    return meter.rowsInTotal();
  }

  public boolean isSource() {
    return sourceLeaf >= 0;
  }

  public long actorId() {
    return actorId;
  }

  private void dispatch(StreamChunk chunk) throws InterruptedException {
    if (chunk.size() == 0) {
      return;
    }
    meter.rowsOut(chunk.cardinality()); // visible rows only: a filter or a hash dispatch masks the others
    for (Dispatcher d : dispatchers) {
      d.dispatch(chunk);
    }
  }

  /**
   * To every output of the current dispatchers (a reschedule replaces them), if it rose above what
   * went out on its column since the last reschedule barrier (after which downstream actors forget it).
   */
  private void dispatchWatermark(Watermark w) throws InterruptedException {
    Long sent = dispatchedWatermarks.get(w.column());
    if (sent != null && w.value() <= sent) {
      return;
    }
    dispatchedWatermarks.put(w.column(), w.value());
    for (Dispatcher d : dispatchers) {
      d.watermark(w);
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
    meter.bind(System.nanoTime());
    for (Input in : inputs) {
      in.channel.bindConsumer(thread);
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
    boolean emittedSinceBarrier = false;
    while (!stopping) {
      Object m = barrierInbox.poll();
      if (m != null) {
        emittedSinceBarrier = false;
        if (onBarrier((Barrier) m, 0)) {
          return;
        }
        continue;
      }
      long now = clock.nanoTime();
      StreamChunk c = source.next(now);
      if (c != null) {
        meter.rowsIn(c.size());
        emitters[sourceLeaf].emit(c);
        emittedSinceBarrier = true;
      }
      Watermark w = source.pollWatermark();
      if (w != null) {
        emitters[sourceLeaf].watermark(w);
      }
      if (c != null) {
        continue;
      }
      if (emittedSinceBarrier && source.ended()) {
        emittedSinceBarrier = false; // asked once; the barrier that comes seals everything emitted
        listener.sourceEnded(actorId);
      }
      long wait = source.nanosUntilReady(now);
      long t0 = System.nanoTime();
      if (wait == Long.MAX_VALUE) {
        LockSupport.park(this);
      } else if (wait > 0) {
        LockSupport.parkNanos(this, wait);
      }
      meter.idle(System.nanoTime() - t0);
      if (Thread.interrupted()) {
        throw new InterruptedException();
      }
    }
  }

  private void runMerge() throws InterruptedException {
    while (!stopping) {
      Object m = nextInput(held == null);
      if (m == null) { // a barrier is held and no input waits: the held work goes on
        if (continueHeld(false)) {
          return;
        }
      } else if (m instanceof StreamChunk c) {
        int leaf = deliveredInput.leaf;
        meter.rowsIn(c.cardinality()); // a chunk shared by several downstream actors shows each only its rows
        nodes.get(leaf).operator().process(0, c, emitters[leaf]);
        if (held != null && continueHeld(false)) {
          return;
        }
      } else if (m instanceof Watermark w) {
        alignWatermark(deliveredInput, w);
      } else {
        if (held != null && continueHeld(true)) { // the next barrier: the held one completes first
          return;
        }
        if (onBarrier((Barrier) m, 0)) {
          return;
        }
      }
    }
  }

  /**
   * A slice (or, with {@code all}, the rest) of the held barrier's work; once it is done, the
   * barrier goes on from the operator above the one that held it. Returns true if the actor must end.
   */
  private boolean continueHeld(boolean all) throws InterruptedException {
    int i = heldNode;
    if (!nodes.get(i).operator().continueBarrier(emitters[i], all)) {
      if (!all) {
        return false;
      }
      throw new IllegalStateException("actor " + actorId + ": node " + i + " did not finish its barrier when asked for all of it");
    }
    Barrier b = held;
    held = null;
    boolean end = onBarrier(b, i + 1);
    if (all && held != null) { // an operator above held it in turn: it completes too
      return continueHeld(true);
    }
    return end;
  }

  /**
   * The next chunk or watermark (its input in {@link #deliveredInput}) or the next aligned barrier;
   * without {@code block}, null when none is there yet.
   */
  private Object nextInput(boolean block) throws InterruptedException {
    while (true) {
      int n = inputs.size();
      boolean any = false;
      for (int k = 0; k < n; k++) {
        int idx = (roundRobin + k) % n;
        if (blocked[idx]) {
          continue;
        }
        Input in = inputs.get(idx);
        Object m = in.channel.poll();
        if (m == null) {
          continue;
        }
        any = true;
        roundRobin = idx + 1;
        if (m instanceof Barrier b) {
          if (b.currEpoch() == in.skipBarrierEpoch) {
            in.skipBarrierEpoch = 0; // a new upstream's copy of the barrier that added it
            continue;
          }
          if (pending == null) {
            pending = b;
          } else if (pending.currEpoch() != b.currEpoch()) {
            throw new IllegalStateException("actor " + actorId + " got barrier of epoch " + b.currEpoch() + " from actor "
                + in.upstreamActorId + " while aligning epoch " + pending.currEpoch());
          }
          blocked[idx] = true;
          if (++blockedCount == n) {
            Barrier aligned = pending;
            pending = null;
            blockedCount = 0;
            Arrays.fill(blocked, false);
            return aligned;
          }
          continue;
        }
        deliveredInput = in;
        return m;
      }
      if (!any) {
        if (!block) {
          return null;
        }
        long t0 = System.nanoTime();
        LockSupport.park(this);
        meter.idle(System.nanoTime() - t0);
        if (Thread.interrupted()) {
          throw new InterruptedException();
        }
      }
    }
  }

  /** Records an input's watermark; hands its merge the least of its inputs' once all have one and it rose. */
  private void alignWatermark(Input from, Watermark w) throws InterruptedException {
    from.watermarks.merge(w.column(), w.value(), Math::max);
    long least = Long.MAX_VALUE;
    for (Input in : inputs) {
      if (in.leaf == from.leaf) {
        Long v = in.watermarks.get(w.column());
        if (v == null) {
          return;
        }
        least = Math.min(least, v);
      }
    }
    long key = (long) from.leaf << 32 | w.column();
    Long handed = mergeWatermarks.get(key);
    if (handed == null || least > handed) {
      mergeWatermarks.put(key, least);
      nodes.get(from.leaf).operator().onWatermark(0, new Watermark(w.column(), least), emitters[from.leaf]);
    }
  }

  /**
   * Passes a barrier through the operators from node {@code from} on, and then on to the
   * dispatchers; returns true if the actor must end. An operator that every input reaches may hold
   * an ordinary barrier (no mutation, not the actor's first): the rest waits until its work is done
   * ({@link #continueHeld}), and the actor reads the next epoch's input meanwhile.
   */
  private boolean onBarrier(Barrier b, int from) throws InterruptedException {
    boolean holdable = sawBarrier && b.mutation() == null;
    for (int i = from; i < nodes.size(); i++) {
      Operator op = nodes.get(i).operator();
      if (holdable && mayHold[i]) {
        if (op.beginBarrier(b, emitters[i])) {
          held = b;
          heldNode = i;
          return false;
        }
      } else {
        op.onBarrier(b, emitters[i]);
      }
    }
    ActorInfo update = b.updateFor(actorId);
    List<Dispatcher> next = new ArrayList<>();
    if (update != null) {
      for (DispatcherInfo d : update.getDispatchersList()) {
        next.add(wiring.dispatcher(actorId, d));
      }
    }
    for (Dispatcher d : dispatchers) {
      d.barrier(b);
    }
    for (Outbox o : addedOutputs(next)) {
      o.send(b);
    }

    boolean gained = false;
    if (update != null) {
      gained = applyUpdate(update, next, b);
    }
    if (b.mutation() != null && b.mutation().hasUpdate()) {
      inputs.forEach(in -> in.watermarks.clear());
      // Downstream actors forget what came before this barrier: say it again. A source says its own
      // (its splits may have changed); what another actor passed on still holds.
      Map<Integer, Long> again = sourceLeaf < 0 && !b.stops(actorId) ? Map.copyOf(dispatchedWatermarks) : Map.of();
      dispatchedWatermarks.clear();
      for (Map.Entry<Integer, Long> w : again.entrySet()) {
        dispatchWatermark(new Watermark(w.getKey(), w.getValue()));
      }
    }
    long now = System.nanoTime();
    SourceOperator source = sourceLeaf >= 0 ? (SourceOperator) nodes.get(sourceLeaf).operator() : null;
    long backlog = source != null ? source.backlog(clock.nanoTime()) : -1;
    long skipped = source != null ? source.skipped() : -1;
    listener.collected(actorId, b, meter.take(actorId, now, backlog, skipped));
    if (b.stops(actorId)) {
      return true;
    }
    if (!sawBarrier || gained) {
      sawBarrier = true;
      long t0 = System.nanoTime();
      wiring.waitReadable(actorId, b);
      meter.idle(System.nanoTime() - t0);
    }
    return false;
  }

  private static Set<Long> outputIds(List<Dispatcher> ds) {
    Set<Long> ids = new HashSet<>();
    for (Dispatcher d : ds) {
      for (long id : d.outputActorIds()) {
        ids.add(id);
      }
    }
    return ids;
  }

  /** Outputs of the new dispatchers to downstream actors the update adds: they get this barrier before any new data. */
  private List<Outbox> addedOutputs(List<Dispatcher> next) {
    Set<Long> current = outputIds(dispatchers);
    List<Outbox> out = new ArrayList<>();
    Set<Long> seen = new HashSet<>();
    for (Dispatcher d : next) {
      long[] ids = d.outputActorIds();
      for (int i = 0; i < ids.length; i++) {
        if (!current.contains(ids[i]) && seen.add(ids[i])) {
          out.add(d.output(i));
        }
      }
    }
    return out;
  }

  /**
   * Applies a reschedule after the barrier went out: switches to the new dispatchers and inputs and
   * releases links no longer used. Returns true if vnodes or splits were gained.
   */
  private boolean applyUpdate(ActorInfo update, List<Dispatcher> next, Barrier b) {
    Set<Long> droppedOutputs = outputIds(dispatchers);
    droppedOutputs.removeAll(outputIds(next));
    dispatchers.clear();
    dispatchers.addAll(next);
    for (long down : droppedOutputs) {
      wiring.release(actorId, down);
    }
    Map<Long, Input> byUpstream = new HashMap<>();
    inputs.forEach(in -> byUpstream.put(in.upstreamActorId, in));
    List<Input> nextInputs = new ArrayList<>();
    for (MergeInfo m : update.getMergesList()) {
      Integer leaf = mergeLeafByFragment.get(m.getUpstreamFragmentId());
      if (leaf == null) {
        throw new IllegalStateException("actor " + actorId + " has no merge for fragment " + m.getUpstreamFragmentId());
      }
      for (long up : m.getUpstreamActorIdsList()) {
        Input in = byUpstream.get(up);
        if (in == null) {
          in = new Input(wiring.input(up, actorId), leaf, up);
          in.skipBarrierEpoch = b.currEpoch();
          in.channel.bindConsumer(thread);
        }
        nextInputs.add(in);
      }
    }
    if (sourceLeaf < 0) {
      Set<Long> kept = new HashSet<>();
      nextInputs.forEach(in -> kept.add(in.upstreamActorId));
      for (Input in : inputs) {
        if (!kept.contains(in.upstreamActorId)) {
          wiring.release(in.upstreamActorId, actorId);
        }
      }
      inputs.clear();
      inputs.addAll(nextInputs);
      blocked = new boolean[inputs.size()];
      roundRobin = 0;
    }
    boolean gained = false;
    if (!update.getVnodes().isEmpty()) {
      VnodeBitmap nv = VnodeBitmap.parse(vnodes.vnodeCount(), update.getVnodes());
      if (!nv.equals(vnodes)) {
        for (Node n : nodes) {
          n.operator().updateVnodes(vnodes, nv);
        }
        gained = !nv.isSubsetOf(vnodes);
        vnodes = nv;
      }
    }
    if (sourceLeaf >= 0 && !update.getSplitsList().equals(splits)) {
      gained = !splits.containsAll(update.getSplitsList());
      splits = List.copyOf(update.getSplitsList());
      ((SourceOperator) nodes.get(sourceLeaf).operator()).updateSplits(splits);
    }
    return gained;
  }
}
