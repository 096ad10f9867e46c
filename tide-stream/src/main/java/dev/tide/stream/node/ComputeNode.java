package dev.tide.stream.node;

import dev.tide.common.time.Clock;
import dev.tide.proto.stream.Ack;
import dev.tide.proto.stream.ActorInfo;
import dev.tide.proto.stream.BarrierRequest;
import dev.tide.proto.stream.BuildActorsRequest;
import dev.tide.proto.stream.ActorLoad;
import dev.tide.proto.stream.CollectedReport;
import dev.tide.proto.stream.CommitVersionRequest;
import dev.tide.proto.stream.FailureReport;
import dev.tide.proto.stream.InjectBarrierRequest;
import dev.tide.proto.stream.MetaServiceGrpc;
import dev.tide.proto.stream.PassedReport;
import dev.tide.proto.stream.ResetRequest;
import dev.tide.proto.stream.SstIdRequest;
import dev.tide.proto.stream.SstIdResponse;
import dev.tide.proto.stream.Update;
import dev.tide.proto.stream.StreamServiceGrpc;
import dev.tide.proto.store.SstInfo;
import dev.tide.storage.StateStore;
import dev.tide.storage.object.ObjectStore;
import dev.tide.storage.sst.BlockCache;
import dev.tide.stream.actor.Actor;
import dev.tide.stream.actor.Barrier;
import dev.tide.stream.actor.Channel;
import dev.tide.stream.exchange.ExchangeClient;
import dev.tide.stream.exchange.ExchangeConfig;
import dev.tide.stream.exchange.ExchangeException;
import dev.tide.stream.exchange.ExchangeReceiver;
import io.grpc.BindableService;
import io.grpc.Context;
import io.grpc.Status;
import io.grpc.stub.StreamObserver;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The compute role: hosts actors, collects barriers from them, uploads each completed epoch's
 * writes as SSTs and reports them to meta (DESIGN.md, barriers steps 3–4).
 *
 * <p>Exchange: a node built with an {@link ExchangeClient} keeps its own input channels, links its
 * actors to actors of other workers over gRPC ({@link Links}) and receives such links with the
 * service {@link #exchangeService()}, which must be served on the same server as this stream
 * service (meta gives a worker's registered address as its exchange address). A broken link fails
 * the actor that uses it (sender or receiver side) through the failure report to meta.
 *
 * <p>An epoch completes on this node when every actor meta listed for its barrier has passed it;
 * completions are uploaded and reported in epoch order by one uploader thread. A reset (recovery)
 * stops every actor, drops uncommitted state and bumps a generation so late work of the old run is
 * discarded.
 */
public final class ComputeNode extends StreamServiceGrpc.StreamServiceImplBase implements Actor.BarrierListener, Actor.Wiring {
  private static final Logger LOG = LoggerFactory.getLogger(ComputeNode.class);

  private record Running(Actor actor, Thread thread, Channel inbox, int jobId, int fragmentId) {}

  private final String name;
  private final MetaServiceGrpc.MetaServiceBlockingStub meta;
  private final ObjectStore objects;
  private final StateStore store;
  private final LocalExchange channels;
  private final Links links;
  private final ExchangeClient client;
  private final ExchangeReceiver receiver;
  private final ActorBuilder builder;
  private final ExecutorService uploader;
  private volatile int workerId = -1;
  private volatile boolean closed;

  private final Object lock = new Object();
  private final Map<Long, Running> actors = new HashMap<>();
  /**
   * Actors that stopped here, with their fragment and the epoch whose barrier stopped them, kept
   * until a later epoch completes here ({@link #waitReadable} asks whether a dropped actor ran here;
   * by then every actor of this node that could ask has passed that barrier and asked).
   */
  private final Map<Long, Stopped> stopped = new HashMap<>();

  private record Stopped(int fragmentId, long epoch) {}
  /** Rows in of actors that stopped here, by (job, fragment) ({@link #fragmentRowsIn}). */
  private final Map<Long, Long> departedRowsIn = new HashMap<>();
  /**
   * Barriers being collected, by current epoch. An actor may pass a barrier before meta's inject
   * request reaches this node (the barrier came from a source elsewhere), so arrivals are kept
   * until the expected set is known.
   */
  private final TreeMap<Long, Collection> collecting = new TreeMap<>();

  private static final class Collection {
    final Set<Long> arrived = new HashSet<>();
    final List<ActorLoad> loads = new ArrayList<>();
    Set<Long> expected;
    Barrier barrier;
    long runId;
    boolean reportPassed;

    boolean complete() {
      return expected != null && arrived.containsAll(expected);
    }
  }
  private long generation;
  private boolean failed;

  // SST ids come from meta in batches so they are unique across the cluster.
  private long nextSstId;
  private long sstIdsLeft;

  /**
   * A node of the embedded cluster whose nodes share {@code channels} in one JVM: every link, to
   * whatever worker, is a channel of it.
   */
  public ComputeNode(String name, MetaServiceGrpc.MetaServiceBlockingStub meta, ObjectStore objects, BlockCache cache,
      LocalExchange channels, Clock clock) {
    this(name, meta, objects, cache, channels, null, null, clock);
  }

  /**
   * A node with its own channels that reaches actors of other workers through {@code peers} and
   * takes their links through {@link #exchangeService()}, with the flow control of {@code exchange}.
   */
  public ComputeNode(String name, MetaServiceGrpc.MetaServiceBlockingStub meta, ObjectStore objects, BlockCache cache,
      ExchangeClient peers, ExchangeConfig exchange, Clock clock) {
    this(name, meta, objects, cache, new LocalExchange(Channel.DEFAULT_CAPACITY), peers, exchange, clock);
  }

  private ComputeNode(String name, MetaServiceGrpc.MetaServiceBlockingStub meta, ObjectStore objects, BlockCache cache,
      LocalExchange channels, ExchangeClient peers, ExchangeConfig exchange, Clock clock) {
    this.name = name;
    this.meta = meta;
    this.objects = objects;
    this.store = new StateStore(objects, cache, "state", this::allocateSstId);
    this.channels = channels;
    this.client = peers;
    this.links = new Links(channels, peers, () -> workerId);
    this.receiver = peers == null ? null : new ExchangeReceiver(links::input, exchange, r -> {
      Thread t = new Thread(r);
      t.setDaemon(true);
      return t;
    }, this::linkFailed);
    this.builder = new ActorBuilder(store, links, clock);
    this.uploader = Executors.newSingleThreadExecutor(r -> {
      Thread t = new Thread(r, name + "-uploader");
      t.setDaemon(true);
      return t;
    });
  }

  /**
   * The exchange service to serve next to this node's stream service, on the same server.
   *
   * @throws IllegalStateException if this node shares channels in one JVM and takes no remote links
   */
  public BindableService exchangeService() {
    if (receiver == null) {
      throw new IllegalStateException(name + " shares its channels in one JVM and serves no exchange; build it with an ExchangeClient");
    }
    return receiver;
  }

  /** Remote outputs of this node's actors open now (status, tests). */
  public List<Links.RemoteLink> remoteLinks() {
    return links.remoteLinks();
  }

  /** Remote links into this node's actors open now (0 without remote exchange). */
  public int inboundLinkCount() {
    return receiver == null ? 0 : receiver.linkCount();
  }

  /** Messages of a remote link into this node queued and not yet in their channel, or -1 if there is no such link. */
  public int inboundPending(long upActorId, long downActorId) {
    return receiver == null ? -1 : receiver.pending(upActorId, downActorId);
  }

  /** Input channels registered on this node (in an embedded cluster sharing channels: on all its nodes). */
  public int channelCount() {
    return channels.size();
  }

  /** The input channel of {@code downActorId} for messages of {@code upActorId} (status, tests). */
  public Channel inputChannel(long upActorId, long downActorId) {
    return links.input(upActorId, downActorId);
  }

  public String name() {
    return name;
  }

  public void setWorkerId(int id) {
    this.workerId = id;
  }

  public int workerId() {
    return workerId;
  }

  public StateStore store() {
    return store;
  }

  /** The object store the node's state lives in. */
  public ObjectStore objects() {
    return objects;
  }

  public int actorCount() {
    synchronized (lock) {
      return actors.size();
    }
  }

  /**
   * Rows the source actors running here produced since each started: a live progress figure (the
   * benchmarks sample it), unlike the per-barrier loads; actors that stopped no longer count.
   */
  public long sourceRowsProduced() {
    synchronized (lock) {
      long sum = 0;
      for (Running r : actors.values()) {
        if (r.actor().isSource()) {
          sum += r.actor().rowsInTotal();
        }
      }
      return sum;
    }
  }

  /**
   * Rows the actors of one fragment read on this node (a source fragment: rows produced) since this
   * node started, those of actors a reschedule removed included, as of each actor's last chunk: a
   * live figure that only grows while the node runs (rows replayed after a recovery count again).
   */
  public long fragmentRowsIn(int jobId, int fragmentId) {
    synchronized (lock) {
      long sum = departedRowsIn.getOrDefault(fragmentKey(jobId, fragmentId), 0L);
      for (Running r : actors.values()) {
        if (r.jobId() == jobId && r.fragmentId() == fragmentId) {
          sum += r.actor().rowsInTotal();
        }
      }
      return sum;
    }
  }

  private static long fragmentKey(int jobId, int fragmentId) {
    return ((long) jobId << 32) | (fragmentId & 0xFFFFFFFFL);
  }

  /** Epochs whose barrier is still being collected here, with the actors not yet reported (for status displays). */
  public Map<Long, Set<Long>> collecting() {
    synchronized (lock) {
      Map<Long, Set<Long>> out = new TreeMap<>();
      collecting.forEach((e, c) -> {
        Set<Long> missing = new TreeSet<>(c.expected == null ? Set.of() : c.expected);
        missing.removeAll(c.arrived);
        out.put(e, missing);
      });
      return out;
    }
  }

  private synchronized long allocateSstId() {
    if (sstIdsLeft == 0) {
      SstIdResponse r = metaCall().allocateSstIds(SstIdRequest.newBuilder().setCount(256).build());
      nextSstId = r.getFirstId();
      sstIdsLeft = r.getCount();
    }
    sstIdsLeft--;
    return nextSstId++;
  }

  @Override
  public void buildActors(BuildActorsRequest req, StreamObserver<Ack> done) {
    try {
      List<Running> started = new ArrayList<>();
      synchronized (lock) {
        for (ActorInfo info : req.getActorsList()) {
          if (actors.containsKey(info.getActorId())) {
            throw new IllegalArgumentException("actor " + info.getActorId() + " already runs on " + name);
          }
          Channel inbox = new Channel(64);
          Actor a = builder.build(req.getJob(), info, req.getPaused(), inbox, this, this);
          Thread t = new Thread(a, name + "-actor-" + info.getActorId());
          t.setDaemon(true);
          Running r = new Running(a, t, inbox, info.getJobId(), info.getFragmentId());
          actors.put(info.getActorId(), r);
          started.add(r);
        }
      }
      started.forEach(r -> r.thread().start());
      reply(done);
    } catch (RuntimeException e) {
      LOG.warn("{}: build actors failed: {}", name, e.toString());
      done.onError(Status.INVALID_ARGUMENT.withDescription(e.getMessage()).asRuntimeException());
    }
  }

  @Override
  public void injectBarrier(InjectBarrierRequest req, StreamObserver<Ack> done) {
    Barrier b = Barrier.of(req.getBarrier());
    workerId = req.getWorkerId();
    List<Channel> inboxes = new ArrayList<>();
    synchronized (lock) {
      Collection c = collecting.computeIfAbsent(b.currEpoch(), e -> new Collection());
      c.expected = new HashSet<>(req.getActorsToCollectList());
      c.barrier = b;
      c.runId = req.getRunId();
      c.reportPassed = req.getReportPassed();
      completeReady();
      for (long id : req.getActorsToSendList()) {
        Running r = actors.get(id);
        if (r == null) {
          done.onError(Status.NOT_FOUND.withDescription("no actor " + id + " on " + name).asRuntimeException());
          return;
        }
        inboxes.add(r.inbox());
      }
    }
    try {
      for (Channel c : inboxes) {
        c.send(b);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      done.onError(Status.CANCELLED.asRuntimeException());
      return;
    }
    reply(done);
  }

  @Override
  public Channel input(long upActor, long downActor) {
    return links.input(upActor, downActor);
  }

  @Override
  public void release(long upActor, long downActor) {
    links.release(upActor, downActor);
  }

  @Override
  public dev.tide.stream.actor.Dispatcher dispatcher(long actorId, dev.tide.proto.stream.DispatcherInfo info) {
    return builder.dispatcher(actorId, info);
  }

  /**
   * An actor's state up to a reschedule barrier is in this node's store as soon as its previous
   * owners here have passed the barrier: each ingests its writes of the epoch at the barrier, and
   * ingested batches are readable by every actor of the node. So when every actor of the fragment
   * that the reschedule updates or drops runs here, this waits for those actors to pass the barrier
   * (no longer than it takes them to drain what is queued before it); otherwise, and for a first
   * barrier that is not a reschedule, for the epoch before the barrier to commit, which installs the
   * writes of other nodes too. Earlier epochs are covered either way: the last time these vnodes
   * came from another node, the owner then waited for their commit.
   */
  @Override
  public void waitReadable(long actorId, Barrier barrier) throws InterruptedException {
    Set<Long> owners = localPeers(actorId, barrier);
    if (owners == null) {
      store.waitCommitted(barrier.prevEpoch());
      return;
    }
    synchronized (lock) {
      long gen = generation;
      while (gen == generation && !closed && !passed(barrier.currEpoch(), owners)) {
        lock.wait();
      }
    }
  }

  /**
   * The other actors of {@code actorId}'s fragment that {@code barrier}'s reschedule updates or drops
   * (every previous owner of what the actor gains is among them), or null if the barrier is no
   * reschedule of the actor's job or one of them may run on another node.
   */
  private Set<Long> localPeers(long actorId, Barrier barrier) {
    if (barrier.mutation() == null || !barrier.mutation().hasUpdate()) {
      return null;
    }
    Update update = barrier.mutation().getUpdate();
    synchronized (lock) {
      Running me = actors.get(actorId);
      if (me == null || me.jobId() != update.getJobId()) {
        return null;
      }
      Set<Long> peers = new HashSet<>();
      for (ActorInfo a : update.getActorsList()) {
        if (a.getFragmentId() == me.fragmentId() && a.getActorId() != actorId) {
          if (a.getWorkerId() != workerId) {
            return null;
          }
          peers.add(a.getActorId());
        }
      }
      for (long dropped : update.getDroppedActorIdsList()) {
        Running running = actors.get(dropped);
        Stopped gone = stopped.get(dropped);
        if (running == null && gone == null) {
          return null; // it ran elsewhere, maybe in this fragment
        }
        if ((running != null ? running.fragmentId() : gone.fragmentId()) == me.fragmentId()) {
          peers.add(dropped);
        }
      }
      return peers;
    }
  }

  /** Whether every one of {@code ids} passed the barrier of {@code epoch}; under {@link #lock}. */
  private boolean passed(long epoch, Set<Long> ids) {
    Collection c = collecting.get(epoch);
    // The caller passed it too, so an epoch no longer collected here is complete (or reset).
    return c == null || c.arrived.containsAll(ids);
  }

  @Override
  public void collected(long actorId, Barrier barrier, dev.tide.stream.actor.ActorLoad load) {
    boolean stops = barrier.stops(actorId);
    synchronized (lock) {
      Running r = actors.get(actorId);
      if (r == null) {
        return; // an actor of a run that a reset already ended
      }
      if (stops) {
        actors.remove(actorId);
        stopped.put(actorId, new Stopped(r.fragmentId(), barrier.currEpoch()));
        departedRowsIn.merge(fragmentKey(r.jobId(), r.fragmentId()), r.actor().rowsInTotal(), Long::sum);
      }
      Collection c = collecting.computeIfAbsent(barrier.currEpoch(), e -> new Collection());
      c.arrived.add(actorId);
      lock.notifyAll(); // waitReadable
      c.loads.add(ActorLoad.newBuilder().setActorId(actorId).setJobId(r.jobId()).setFragmentId(r.fragmentId())
          .setElapsedNs(load.elapsedNanos()).setRowsIn(load.rowsIn()).setRowsOut(load.rowsOut()).setIdleNs(load.idleNanos())
          .setBlockedNs(load.blockedNanos()).setBacklog(load.backlog()).setSkipped(load.skipped()).build());
      completeReady();
    }
    if (stops) {
      // On the actor's thread, after it forwarded its last barrier: its outputs close gracefully.
      links.actorsEnded(Set.of(actorId), Set.of());
      if (receiver != null) {
        receiver.closeLinksTo(Set.of(actorId));
      }
    }
  }

  /**
   * Asks meta for a barrier now, without blocking the actor: the barrier is a hint's answer, and the
   * next periodic barrier commits the source's final offsets anyway if the request is lost.
   */
  @Override
  public void sourceEnded(long actorId) {
    BarrierRequest req = BarrierRequest.newBuilder().setWorkerId(workerId).setActorId(actorId).build();
    tell((stub, done) -> stub.requestBarrier(req, done),
        "barrier request for the ended source actor " + actorId + " failed (the next periodic barrier commits it)");
  }

  /** Sends a hint to meta without blocking; a failure is logged with {@code onFailure}, as the hint is optional. */
  private void tell(BiConsumer<MetaServiceGrpc.MetaServiceStub, StreamObserver<Ack>> call, String onFailure) {
    Context.ROOT.run(() -> call.accept(MetaServiceGrpc.newStub(meta.getChannel()).withDeadlineAfter(30, TimeUnit.SECONDS),
        new StreamObserver<>() {
          @Override
          public void onNext(Ack ack) {}

          @Override
          public void onError(Throwable t) {
            LOG.info("{}: {}: {}", name, onFailure, Status.fromThrowable(t));
          }

          @Override
          public void onCompleted() {}
        }));
  }

  /**
   * Tells meta, without blocking, that every actor here passed a barrier it waits for (a settling
   * barrier). A lost report only delays meta until the epoch's collection, which counts too.
   */
  private void reportPassed(long epoch, long runId) {
    PassedReport req = PassedReport.newBuilder().setWorkerId(workerId).setEpoch(epoch).setRunId(runId).build();
    tell((stub, done) -> stub.reportPassed(req, done), "report of passing epoch " + epoch + " failed (its collection follows)");
  }

  /** A remote link into one of this node's actors broke (its sender's node died or broke the protocol). */
  private void linkFailed(long upActor, long downActor, Throwable cause) {
    synchronized (lock) {
      if (closed || !actors.containsKey(downActor)) {
        return; // the actor already ended: nobody waits for the link
      }
    }
    failed(downActor, new ExchangeException("exchange link actor " + upActor + " -> actor " + downActor + " into " + name
        + " broke: " + Status.fromThrowable(cause), cause));
  }

  /** Hands completed epochs to the uploader, oldest first; under the lock so they stay in order. */
  private void completeReady() {
    while (!collecting.isEmpty() && collecting.firstEntry().getValue().complete()) {
      Map.Entry<Long, Collection> done = collecting.pollFirstEntry();
      stopped.values().removeIf(s -> s.epoch() < done.getKey());
      Collection c = done.getValue();
      if (c.reportPassed) {
        reportPassed(c.barrier.prevEpoch(), c.runId);
      }
      complete(c.barrier, c.runId, generation, c.loads);
    }
  }

  private void complete(Barrier barrier, long runId, long gen, List<ActorLoad> loads) {
    uploader.execute(() -> {
      synchronized (lock) {
        if (gen != generation) {
          return;
        }
      }
      try {
        List<SstInfo> ssts = store.sync(barrier.prevEpoch());
        synchronized (lock) {
          if (gen != generation) {
            return;
          }
        }
        metaCall().reportCollected(CollectedReport.newBuilder().setWorkerId(workerId).setEpoch(barrier.prevEpoch()).addAllSsts(ssts).setRunId(runId)
            .addAllLoads(loads).build());
      } catch (RuntimeException e) {
        if (closed) {
          return; // shutting down: the interrupted upload is not a failure
        }
        synchronized (lock) {
          if (gen != generation) {
            return; // a reset discarded this epoch meanwhile: its failure belongs to the old run
          }
        }
        LOG.warn("{}: upload of epoch {} failed: {}", name, barrier.prevEpoch(), e.toString());
        failed(-1, e);
      }
    });
  }

  /**
   * The meta stub for one call: it waits (bounded) for meta to be reachable, so a restarting meta or
   * a reconnecting channel delays a report instead of failing it.
   */
  private MetaServiceGrpc.MetaServiceBlockingStub metaCall() {
    return meta.withWaitForReady().withDeadlineAfter(30, java.util.concurrent.TimeUnit.SECONDS);
  }

  @Override
  public void failed(long actorId, Throwable error) {
    synchronized (lock) {
      if (failed || closed) {
        return;
      }
      failed = true;
    }
    LOG.warn("{}: actor {} failed: {}", name, actorId, error.toString(), error);
    // In the root context: a failure seen in a gRPC callback (a broken link) runs in a cancelled call's context.
    Context.ROOT.run(() -> {
      try {
        metaCall().reportFailure(FailureReport.newBuilder().setWorkerId(workerId).setActorId(actorId)
            .setError(String.valueOf(error)).build());
      } catch (RuntimeException e) {
        LOG.warn("{}: could not report failure to meta: {}", name, e.toString());
      }
    });
  }

  @Override
  public void commitVersion(CommitVersionRequest req, StreamObserver<Ack> done) {
    store.commit(req.getVersion());
    reply(done);
  }

  @Override
  public void reset(ResetRequest req, StreamObserver<Ack> done) {
    stopAll();
    store.reset(req.getVersion());
    reply(done);
  }

  /** Stops every actor and forgets in-flight epochs (recovery, shutdown). */
  public void stopAll() {
    List<Running> stopping;
    synchronized (lock) {
      generation++;
      failed = false;
      collecting.clear();
      stopped.clear();
      lock.notifyAll(); // waitReadable
      stopping = new ArrayList<>(actors.values());
      for (Running r : stopping) {
        departedRowsIn.merge(fragmentKey(r.jobId(), r.fragmentId()), r.actor().rowsInTotal(), Long::sum);
      }
      actors.clear();
    }
    for (Running r : stopping) {
      r.actor().stop();
    }
    Set<Long> ids = new HashSet<>();
    Set<Long> stuck = new HashSet<>();
    for (Running r : stopping) {
      ids.add(r.actor().actorId());
      try {
        r.thread().join(TimeUnit.SECONDS.toMillis(10));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      if (r.thread().isAlive()) {
        LOG.warn("{}: actor {} did not stop within 10 s", name, r.actor().actorId());
        stuck.add(r.actor().actorId());
      }
    }
    if (receiver != null) {
      receiver.detachAll();
    }
    links.reset(ids, stuck);
  }

  /** Stops everything; links to and from this node break, as if its process ended. */
  public void shutdown() {
    closed = true;
    if (receiver != null) {
      receiver.close();
    }
    if (client != null) {
      client.close();
    }
    stopAll();
    uploader.shutdownNow();
  }

  private static void reply(StreamObserver<Ack> done) {
    done.onNext(Ack.getDefaultInstance());
    done.onCompleted();
  }
}
