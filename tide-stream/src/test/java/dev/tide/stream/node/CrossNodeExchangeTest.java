package dev.tide.stream.node;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tide.common.hash.VnodeBitmap;
import dev.tide.common.time.Clock;
import dev.tide.proto.plan.DispatchType;
import dev.tide.proto.plan.Fragment;
import dev.tide.proto.plan.FragmentEdge;
import dev.tide.proto.plan.JobDefinition;
import dev.tide.proto.plan.TableCatalog;
import dev.tide.proto.store.StoreVersion;
import dev.tide.proto.stream.ActorInfo;
import dev.tide.proto.stream.Barrier;
import dev.tide.proto.stream.BuildActorsRequest;
import dev.tide.proto.stream.DispatcherInfo;
import dev.tide.proto.stream.FailureReport;
import dev.tide.proto.stream.InjectBarrierRequest;
import dev.tide.proto.stream.MergeInfo;
import dev.tide.proto.stream.Mutation;
import dev.tide.proto.stream.ResetRequest;
import dev.tide.proto.stream.Stop;
import dev.tide.proto.stream.StreamServiceGrpc;
import dev.tide.storage.object.ObjectStore;
import dev.tide.stream.actor.ActorLoad;
import dev.tide.storage.sst.BlockCache;
import dev.tide.stream.exchange.ExchangeClient;
import dev.tide.stream.exchange.ExchangeConfig;
import dev.tide.stream.nexmark.NexmarkConfig;
import dev.tide.stream.nexmark.NexmarkReference;
import dev.tide.stream.plan.JobCompiler;
import dev.tide.stream.queries.NexmarkPlans;
import dev.tide.stream.state.MemoryObjectStore;
import dev.tide.stream.state.StateTable;
import io.grpc.ManagedChannel;
import io.grpc.Server;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Compute nodes with their own channels, linked over loopback gRPC (Netty on 127.0.0.1), driven
 * through their stream service as meta drives them (a fake meta records reports and never
 * commits, so every write stays readable on its node): results across nodes equal the reference,
 * a slow downstream on the other node bounds what its upstream has sent, broken links fail the
 * actors on both sides into the failure report, and stopped or reset actors leave no link behind.
 */
class CrossNodeExchangeTest {
  private static final Duration WAIT = Duration.ofSeconds(60);
  private static final long EVENTS = 3000;
  private static final int VNODES = 16;

  private final ObjectStore objects = new MemoryObjectStore();
  private final List<Node> nodes = new ArrayList<>();
  private FakeMeta meta;
  private long epoch = 1;

  /** A compute node serving its stream and exchange services on one loopback port. */
  private final class Node implements AutoCloseable {
    final int workerId;
    final ExchangeClient client;
    final ComputeNode compute;
    final Server server;
    final ManagedChannel channel;
    final StreamServiceGrpc.StreamServiceBlockingStub stub;
    final String address;
    final List<Long> sources = new ArrayList<>();
    final List<Long> actors = new ArrayList<>();

    Node(int workerId, ExchangeConfig config) throws Exception {
      this.workerId = workerId;
      this.client = ExchangeClient.plaintext(config);
      this.compute = new ComputeNode("w" + workerId, meta.stub(), objects, new BlockCache(16 << 20), client, config, Clock.SYSTEM);
      compute.setWorkerId(workerId);
      compute.store().commit(StoreVersion.newBuilder().setId(1).setMaxCommittedEpoch(1).build());
      this.server = NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0)).addService(compute)
          .addService(compute.exchangeService()).build().start();
      this.address = "127.0.0.1:" + server.getPort();
      this.channel = NettyChannelBuilder.forTarget(address).usePlaintext().build();
      this.stub = StreamServiceGrpc.newBlockingStub(channel);
    }

    String address() {
      return address;
    }

    void build(JobDefinition job, ActorInfo... infos) {
      for (ActorInfo a : infos) {
        actors.add(a.getActorId());
        if (!a.getSplitsList().isEmpty()) {
          sources.add(a.getActorId());
        }
      }
      stub.buildActors(BuildActorsRequest.newBuilder().setJob(job).addAllActors(List.of(infos)).build());
    }

    @Override
    public void close() throws InterruptedException {
      channel.shutdownNow();
      compute.shutdown();
      server.shutdownNow();
      server.awaitTermination(10, TimeUnit.SECONDS);
    }
  }

  @BeforeEach
  void setUp() throws Exception {
    meta = new FakeMeta();
  }

  @AfterEach
  void tearDown() throws Exception {
    for (Node n : nodes) {
      n.close();
    }
    meta.close();
  }

  private Node node(int workerId, ExchangeConfig config) throws Exception {
    Node n = new Node(workerId, config);
    nodes.add(n);
    return n;
  }

  // ------------------------------------------------------------------ the job: q0, source → hash → materialize

  private static JobDefinition q0(Map<String, String> extra) {
    Map<String, String> options = new HashMap<>(Map.of("seed", "7", "event-time-rate", "1000", "splits", "4"));
    options.putAll(extra);
    JobDefinition job = JobCompiler.compile(NexmarkPlans.plan("q0", options), 1, VNODES, 100);
    assertThat(job.getFragmentsCount()).as("q0 fragments").isEqualTo(2);
    assertThat(job.getEdges(0).getType()).isEqualTo(DispatchType.HASH);
    return job;
  }

  private static Fragment fragment(JobDefinition job, boolean source) {
    return job.getFragmentsList().stream().filter(f -> f.getHasSource() == source).findFirst().orElseThrow();
  }

  /** A source actor hashing to {@code downs} (actor id → node), vnode v owned by {@code owner[v]}. */
  private static ActorInfo source(JobDefinition job, long id, Node on, List<Integer> splits, long[] downs, Node[] downNodes,
      int[] owner) {
    FragmentEdge e = job.getEdges(0);
    DispatcherInfo.Builder d = DispatcherInfo.newBuilder().setDownstreamFragmentId(e.getDownstreamFragmentId())
        .setType(DispatchType.HASH).addAllDistKey(e.getDistKeyList());
    for (int i = 0; i < downs.length; i++) {
      d.addDownstreamActorIds(downs[i]).addDownstreamWorkerIds(downNodes[i].workerId).addDownstreamAddresses(downNodes[i].address());
    }
    Arrays.stream(owner).forEach(d::addVnodeOwner);
    return ActorInfo.newBuilder().setActorId(id).setFragmentId(fragment(job, true).getFragmentId()).setJobId(job.getJobId())
        .setWorkerId(on.workerId).setVnodes(VnodeBitmap.full(VNODES).toString()).addAllSplits(splits).addDispatchers(d).build();
  }

  private static ActorInfo view(JobDefinition job, long id, Node on, VnodeBitmap vnodes, long... ups) {
    MergeInfo.Builder m = MergeInfo.newBuilder().setUpstreamFragmentId(fragment(job, true).getFragmentId());
    Arrays.stream(ups).forEach(m::addUpstreamActorIds);
    return ActorInfo.newBuilder().setActorId(id).setFragmentId(fragment(job, false).getFragmentId()).setJobId(job.getJobId())
        .setWorkerId(on.workerId).setVnodes(vnodes.toString()).addMerges(m).build();
  }

  /** Injects the next barrier into every node's sources and waits until every node collected it. */
  private void barrier(Mutation mutation) {
    long prev = epoch++;
    Barrier.Builder b = Barrier.newBuilder().setCurrEpoch(epoch).setPrevEpoch(prev).setCheckpoint(true);
    if (mutation != null) {
      b.setMutation(mutation);
    }
    List<Node> involved = nodes.stream().filter(n -> !n.actors.isEmpty()).toList();
    for (Node n : involved) {
      n.stub.injectBarrier(InjectBarrierRequest.newBuilder().setBarrier(b).addAllActorsToSend(n.sources)
          .addAllActorsToCollect(n.actors).setWorkerId(n.workerId).setRunId(1).build());
    }
    await().atMost(WAIT).until(() -> involved.stream().allMatch(n -> meta.collected.contains(new FakeMeta.Collected(n.workerId, prev))));
  }

  private static List<List<Object>> scan(JobDefinition job, Node... on) {
    TableCatalog t = job.getTablesList().stream().filter(TableCatalog::getIsMv).findFirst().orElseThrow();
    List<List<Object>> rows = new ArrayList<>();
    for (Node n : on) {
      for (Object[] row : StateTable.scanAll(n.compute.store(), t)) {
        rows.add(Arrays.asList(Arrays.copyOf(row, t.getVisibleColumns())));
      }
    }
    return NexmarkReference.sorted(rows);
  }

  private static Thread actorThread(Node n, long actorId) {
    String name = "w" + n.workerId + "-actor-" + actorId;
    return Thread.getAllStackTraces().keySet().stream().filter(t -> t.getName().equals(name)).findFirst().orElse(null);
  }

  // ------------------------------------------------------------------ tests

  @Test
  void viewAcrossTwoNodesEqualsReferenceAndStoppedActorsLeaveNoLinks() throws Exception {
    Node a = node(1, ExchangeConfig.defaults());
    Node b = node(2, ExchangeConfig.defaults());
    JobDefinition job = q0(Map.of("events", String.valueOf(EVENTS)));
    int[] owner = new int[VNODES];
    Arrays.fill(owner, VNODES / 2, VNODES, 1);
    long[] views = {11, 12};
    Node[] viewNodes = {a, b};
    b.build(job, view(job, 12, b, VnodeBitmap.ofBits(VNODES, bits(VNODES / 2, VNODES)), 1, 2));
    a.build(job, source(job, 1, a, List.of(0, 2), views, viewNodes, owner), source(job, 2, a, List.of(1, 3), views, viewNodes, owner),
        view(job, 11, a, VnodeBitmap.ofBits(VNODES, bits(0, VNODES / 2)), 1, 2));

    List<List<Object>> expected = NexmarkReference.query("q0", NexmarkConfig.defaults().withSeed(7).withEventsPerSecond(1000), EVENTS);
    assertThat(expected).isNotEmpty();
    barrier(null);
    // Sources on A feed the view actor on A through channels and the one on B through remote links.
    assertThat(a.compute.remoteLinks()).extracting(l -> l.upActorId() + "->" + l.downActorId()).containsExactly("1->12", "2->12");
    assertThat(b.compute.remoteLinks()).isEmpty();
    assertThat(b.compute.inboundLinkCount()).isEqualTo(2);
    await().atMost(WAIT).until(() -> {
      barrier(null);
      return scan(job, a, b).equals(expected);
    });
    assertThat(scan(job, b)).as("rows the view actor on B got over the wire").isNotEmpty();

    barrier(Mutation.newBuilder().setStop(Stop.newBuilder().addAllActorIds(List.of(1L, 2L, 11L, 12L))).build());
    await().atMost(WAIT).until(() -> a.compute.actorCount() == 0 && b.compute.actorCount() == 0);
    await().atMost(WAIT).until(() -> a.compute.remoteLinks().isEmpty() && b.compute.inboundLinkCount() == 0
        && a.compute.channelCount() == 0 && b.compute.channelCount() == 0);
    assertThat(meta.failures).isEmpty();
  }

  /**
   * A view actor that gains vnodes from an actor of its own node reads their state as soon as that
   * actor passed the reschedule barrier: no commit is needed (this meta never commits, so waiting for
   * one would stall the new actor and the barriers after it for good).
   */
  @Test
  void aRescheduleWithinOneNodeNeedsNoCommit() throws Exception {
    Node a = node(1, ExchangeConfig.defaults());
    JobDefinition job = q0(Map.of("events", String.valueOf(EVENTS)));
    a.build(job, source(job, 1, a, List.of(0, 1, 2, 3), new long[] {11}, new Node[] {a}, new int[VNODES]),
        view(job, 11, a, VnodeBitmap.full(VNODES), 1));
    barrier(null);
    barrier(null);

    int[] owner = new int[VNODES];
    Arrays.fill(owner, VNODES / 2, VNODES, 1);
    a.build(job, view(job, 12, a, VnodeBitmap.ofBits(VNODES, bits(VNODES / 2, VNODES)), 1));
    dev.tide.proto.stream.Update update = dev.tide.proto.stream.Update.newBuilder().setJobId(job.getJobId())
        .addActors(source(job, 1, a, List.of(0, 1, 2, 3), new long[] {11, 12}, new Node[] {a, a}, owner))
        .addActors(view(job, 11, a, VnodeBitmap.ofBits(VNODES, bits(0, VNODES / 2)), 1)).addAddedActorIds(12).build();
    barrier(Mutation.newBuilder().setUpdate(update).build());

    List<List<Object>> expected = NexmarkReference.query("q0", NexmarkConfig.defaults().withSeed(7).withEventsPerSecond(1000), EVENTS);
    await().atMost(WAIT).until(() -> {
      barrier(null);
      return scan(job, a).equals(expected);
    });
    assertThat(meta.failures).isEmpty();
  }

  /**
   * The wait of an actor that gains vnodes: for the other actors of its fragment that the reschedule
   * names, when they all run on its node; for the commit of the epoch before, when one runs elsewhere.
   */
  @Test
  void aGainingActorWaitsForItsLocalPeersOrElseForTheCommit() throws Exception {
    Node a = node(1, ExchangeConfig.defaults());
    JobDefinition job = q0(Map.of("events", String.valueOf(EVENTS)));
    Node remote = new Node(2, ExchangeConfig.defaults()); // only its address is used: nothing runs there
    nodes.add(remote);
    a.build(job, view(job, 11, a, VnodeBitmap.ofBits(VNODES, bits(0, 4)), 1), view(job, 12, a, VnodeBitmap.ofBits(VNODES, bits(4, 8)), 1),
        view(job, 14, a, VnodeBitmap.ofBits(VNODES, bits(8, VNODES)), 1));
    ActorLoad none = new ActorLoad(0, 0, 0, 0, 0, 0, 0, 0);

    // 12 gains vnodes of 11 (updated) and of 14 (dropped), both here: it waits for the two of them only.
    dev.tide.stream.actor.Barrier local = dev.tide.stream.actor.Barrier.of(Barrier.newBuilder().setCurrEpoch(6).setPrevEpoch(5)
        .setMutation(Mutation.newBuilder().setUpdate(dev.tide.proto.stream.Update.newBuilder().setJobId(job.getJobId())
            .addActors(view(job, 11, a, VnodeBitmap.ofBits(VNODES, bits(0, 1)), 1))
            .addActors(view(job, 12, a, VnodeBitmap.ofBits(VNODES, bits(1, VNODES)), 1)).addDroppedActorIds(14)))
        .build());
    a.compute.collected(12, local, none);
    Thread waiter = waitReadable(a, 12, local);
    await().atMost(WAIT).until(() -> waiter.getState() == Thread.State.WAITING);
    a.compute.collected(11, local, none);
    await().atMost(WAIT).until(() -> waiter.getState() == Thread.State.WAITING);
    assertThat(waiter.isAlive()).as("waits while the dropped actor 14 has not passed the barrier").isTrue();
    a.compute.collected(14, local, none);
    waiter.join(WAIT.toMillis());
    assertThat(waiter.isAlive()).as("returns once both have").isFalse();

    // A peer of the fragment on worker 2: the writes may be there, so the commit of epoch 6 is awaited.
    dev.tide.stream.actor.Barrier cross = dev.tide.stream.actor.Barrier.of(Barrier.newBuilder().setCurrEpoch(7).setPrevEpoch(6)
        .setMutation(Mutation.newBuilder().setUpdate(dev.tide.proto.stream.Update.newBuilder().setJobId(job.getJobId())
            .addActors(view(job, 11, a, VnodeBitmap.ofBits(VNODES, bits(0, 1)), 1))
            .addActors(view(job, 12, a, VnodeBitmap.ofBits(VNODES, bits(1, VNODES - 1)), 1))
            .addActors(view(job, 13, remote, VnodeBitmap.ofBits(VNODES, bits(VNODES - 1, VNODES)), 1))))
        .build());
    a.compute.collected(11, cross, none);
    a.compute.collected(12, cross, none);
    Thread crossWaiter = waitReadable(a, 12, cross);
    await().atMost(WAIT).until(() -> crossWaiter.getState() == Thread.State.WAITING);
    assertThat(crossWaiter.isAlive()).as("waits although every peer here passed the barrier").isTrue();
    a.compute.store().commit(StoreVersion.newBuilder().setId(2).setMaxCommittedEpoch(6).build());
    crossWaiter.join(WAIT.toMillis());
    assertThat(crossWaiter.isAlive()).as("returns once epoch 6 is committed").isFalse();
  }

  private static Thread waitReadable(Node n, long actorId, dev.tide.stream.actor.Barrier b) {
    Thread t = new Thread(() -> {
      try {
        n.compute.waitReadable(actorId, b);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }, "wait-readable-" + actorId);
    t.start();
    return t;
  }

  @Test
  void boundedSourcesAskForABarrierOnceTheirInputEnded() throws Exception {
    Node a = node(1, ExchangeConfig.defaults());
    JobDefinition job = q0(Map.of("events", String.valueOf(EVENTS)));
    long[] views = {11};
    Node[] viewNodes = {a};
    int[] owner = new int[VNODES];
    a.build(job, source(job, 1, a, List.of(0, 2), views, viewNodes, owner), source(job, 2, a, List.of(1, 3), views, viewNodes, owner),
        view(job, 11, a, VnodeBitmap.full(VNODES), 1, 2));
    List<List<Object>> expected = NexmarkReference.query("q0", NexmarkConfig.defaults().withSeed(7).withEventsPerSecond(1000), EVENTS);

    barrier(null); // the sources' first: they emit all of their bounded input after it
    await().atMost(WAIT).until(() -> meta.barrierRequests.size() >= 2);
    barrier(null); // the requested barrier seals the last rows
    assertThat(scan(job, a)).isEqualTo(expected);
    barrier(null); // nothing emitted since the last barrier: no new request
    assertThat(meta.barrierRequests).extracting(r -> r.getWorkerId() + "/" + r.getActorId()).containsExactlyInAnyOrder("1/1", "1/2");
    assertThat(meta.failures).isEmpty();
  }

  @Test
  void slowDownstreamOnAnotherNodeBoundsWhatTheUpstreamSent() throws Exception {
    int window = 4;
    ExchangeConfig config = new ExchangeConfig(window, 2, 64 << 20);
    Node a = node(1, config);
    Node b = node(2, config);
    JobDefinition job = q0(Map.of()); // unbounded, as fast as possible
    int[] owner = new int[VNODES];
    a.build(job, source(job, 1, a, List.of(0, 1, 2, 3), new long[] {21}, new Node[] {b}, owner));
    // Actor 21 is not built yet: nothing reads its input channel on B, the slowest downstream there is.
    long prev = epoch++;
    a.stub.injectBarrier(InjectBarrierRequest.newBuilder().setBarrier(Barrier.newBuilder().setCurrEpoch(epoch).setPrevEpoch(prev))
        .addActorsToSend(1).addActorsToCollect(1).setWorkerId(1).setRunId(1).build());

    int capacity = b.compute.inputChannel(1, 21).capacity();
    await().atMost(WAIT).until(() -> {
      List<Links.RemoteLink> links = a.compute.remoteLinks();
      Thread sender = actorThread(a, 1);
      return links.size() == 1 && links.get(0).permits() == 0 && sender != null && sender.getState() == Thread.State.WAITING
          && b.compute.inputChannel(1, 21).size() == capacity;
    });
    Links.RemoteLink link = a.compute.remoteLinks().get(0);
    assertThat(link.messagesSent()).as("messages the upstream sent (barrier + chunks of <= 1024 rows)")
        .isLessThanOrEqualTo(window + capacity);
    assertThat(b.compute.inboundPending(1, 21)).as("queued on B outside the channel").isBetween(0, window);

    // The downstream starts reading: the upstream resumes.
    b.build(job, view(job, 21, b, VnodeBitmap.full(VNODES), 1));
    await().atMost(WAIT).until(() -> a.compute.remoteLinks().get(0).messagesSent() > 10L * (window + capacity));
    assertThat(meta.failures).isEmpty();
  }

  @Test
  void deadReceiverFailsTheSendingActorAndResetLeavesNoLink() throws Exception {
    Node a = node(1, ExchangeConfig.defaults());
    Node b = node(2, ExchangeConfig.defaults());
    JobDefinition job = q0(Map.of());
    b.build(job, view(job, 21, b, VnodeBitmap.full(VNODES), 1));
    a.build(job, source(job, 1, a, List.of(0, 1, 2, 3), new long[] {21}, new Node[] {b}, new int[VNODES]));
    barrier(null);
    await().atMost(WAIT).until(() -> a.compute.remoteLinks().get(0).messagesSent() > 50);

    b.server.shutdownNow(); // B's process is gone: its transport breaks (B's own actors stay, as orphans would)

    await().atMost(WAIT).until(() -> meta.failures.stream().anyMatch(r -> r.getWorkerId() == 1));
    FailureReport f = meta.failures.stream().filter(r -> r.getWorkerId() == 1).findFirst().orElseThrow();
    assertThat(f.getActorId()).isEqualTo(1);
    assertThat(f.getError()).contains("exchange link actor 1 -> actor 21 on " + b.address() + " is broken");

    a.stub.reset(ResetRequest.newBuilder().setVersion(a.compute.store().committedVersion()).build());
    assertThat(a.compute.actorCount()).isZero();
    assertThat(a.compute.remoteLinks()).isEmpty();
    assertThat(a.compute.channelCount()).isZero();
  }

  @Test
  void deadSenderFailsTheReceivingActor() throws Exception {
    Node a = node(1, ExchangeConfig.defaults());
    Node b = node(2, ExchangeConfig.defaults());
    JobDefinition job = q0(Map.of());
    b.build(job, view(job, 21, b, VnodeBitmap.full(VNODES), 1));
    a.build(job, source(job, 1, a, List.of(0, 1, 2, 3), new long[] {21}, new Node[] {b}, new int[VNODES]));
    barrier(null);
    await().atMost(WAIT).until(() -> a.compute.remoteLinks().get(0).messagesSent() > 50);

    a.client.close(); // A's process is gone: its connections break

    await().atMost(WAIT).until(() -> meta.failures.stream().anyMatch(r -> r.getWorkerId() == 2));
    FailureReport f = meta.failures.stream().filter(r -> r.getWorkerId() == 2).findFirst().orElseThrow();
    assertThat(f.getActorId()).isEqualTo(21);
    assertThat(f.getError()).contains("exchange link actor 1 -> actor 21 into w2 broke");

    b.stub.reset(ResetRequest.newBuilder().setVersion(b.compute.store().committedVersion()).build());
    assertThat(b.compute.actorCount()).isZero();
    assertThat(b.compute.inboundLinkCount()).isZero();
    assertThat(b.compute.channelCount()).isZero();
  }

  /** Recovery resets every node before rebuilding: a reset must not make the other node's actors fail. */
  @Test
  void resetOfOneNodeDoesNotFailActorsOfTheOther() throws Exception {
    Node a = node(1, ExchangeConfig.defaults());
    Node b = node(2, ExchangeConfig.defaults());
    JobDefinition job = q0(Map.of());
    b.build(job, view(job, 21, b, VnodeBitmap.full(VNODES), 1));
    a.build(job, source(job, 1, a, List.of(0, 1, 2, 3), new long[] {21}, new Node[] {b}, new int[VNODES]));
    barrier(null);
    await().atMost(WAIT).until(() -> a.compute.remoteLinks().get(0).messagesSent() > 50);

    b.stub.reset(ResetRequest.newBuilder().setVersion(b.compute.store().committedVersion()).build());
    assertThat(b.compute.inboundLinkCount()).isZero();
    // A's sender is left blocked, not failed, until A is reset too.
    await().atMost(WAIT).until(() -> {
      Thread sender = actorThread(a, 1);
      return sender != null && sender.getState() == Thread.State.WAITING && a.compute.remoteLinks().get(0).permits() == 0;
    });
    a.stub.reset(ResetRequest.newBuilder().setVersion(a.compute.store().committedVersion()).build());
    assertThat(a.compute.remoteLinks()).isEmpty();
    assertThat(meta.failures).isEmpty();
    assertThat(a.compute.channelCount() + b.compute.channelCount()).isZero();
  }

  private static java.util.BitSet bits(int from, int to) {
    java.util.BitSet s = new java.util.BitSet();
    s.set(from, to);
    return s;
  }
}
