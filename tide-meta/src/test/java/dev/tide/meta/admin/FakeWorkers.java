package dev.tide.meta.admin;

import dev.tide.common.config.Config;
import dev.tide.common.time.Clock;
import dev.tide.meta.Meta;
import dev.tide.meta.MetaOptions;
import dev.tide.meta.store.JdbcMetaStore;
import dev.tide.meta.store.MetaStore;
import dev.tide.proto.plan.DispatchType;
import dev.tide.proto.plan.Fragment;
import dev.tide.proto.plan.FragmentEdge;
import dev.tide.proto.plan.HashAggNode;
import dev.tide.proto.plan.JobDefinition;
import dev.tide.proto.plan.MaterializeNode;
import dev.tide.proto.plan.MergeNode;
import dev.tide.proto.plan.PlanNode;
import dev.tide.proto.plan.SourceNode;
import dev.tide.proto.stream.Ack;
import dev.tide.proto.stream.BuildActorsRequest;
import dev.tide.proto.stream.CommitVersionRequest;
import dev.tide.proto.stream.InjectBarrierRequest;
import dev.tide.proto.stream.ResetRequest;
import dev.tide.proto.stream.StreamServiceGrpc;
import io.grpc.Server;
import io.grpc.inprocess.InProcessChannelBuilder;
import io.grpc.inprocess.InProcessServerBuilder;
import io.grpc.stub.StreamObserver;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A meta over fake compute nodes: each acknowledges every request and reports every barrier
 * collected at once with no SSTs, so barriers commit and reschedules complete without actors.
 */
final class FakeWorkers implements AutoCloseable {
  private static final AtomicInteger INSTANCES = new AtomicInteger();

  private final String prefix = "admin-test-" + INSTANCES.incrementAndGet() + "-";
  private final List<Server> servers = new ArrayList<>();
  final Meta meta;
  private final MetaStore store = JdbcMetaStore.open("jdbc:sqlite::memory:");

  FakeWorkers() {
    Config config = Config.defaults().with(MetaOptions.BARRIER_INTERVAL, Duration.ofMillis(50));
    this.meta = new Meta(config, Clock.SYSTEM, address -> InProcessChannelBuilder.forName(address).directExecutor().build(), store);
    meta.start();
  }

  /** Starts one fake compute node and registers it; returns its worker id. */
  synchronized int add(int slots) {
    String name = prefix + (servers.size() + 1);
    try {
      servers.add(InProcessServerBuilder.forName(name).directExecutor().addService(new Compute()).build().start());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return meta.registerWorker(name, slots);
  }

  @Override
  public void close() {
    meta.close();
    servers.forEach(Server::shutdownNow);
    store.close();
  }

  private final class Compute extends StreamServiceGrpc.StreamServiceImplBase {
    @Override
    public void buildActors(BuildActorsRequest req, StreamObserver<Ack> out) {
      ack(out);
    }

    @Override
    public void injectBarrier(InjectBarrierRequest req, StreamObserver<Ack> out) {
      meta.collected(req.getWorkerId(), req.getRunId(), req.getBarrier().getPrevEpoch(), List.of(), List.of());
      ack(out);
    }

    @Override
    public void commitVersion(CommitVersionRequest req, StreamObserver<Ack> out) {
      ack(out);
    }

    @Override
    public void reset(ResetRequest req, StreamObserver<Ack> out) {
      ack(out);
    }

    private void ack(StreamObserver<Ack> out) {
      out.onNext(Ack.getDefaultInstance());
      out.onCompleted();
    }
  }

  static final int SOURCE = 0;
  static final int AGG = 1;
  static final int MIRROR = 2;
  static final int SINGLE = 3;

  /**
   * Job {@code name}: fragment 0 a source with {@code splits} splits, HASH to fragment 1 (an
   * aggregation), which feeds fragment 2 by NO_SHUFFLE (ensemble [1, 2] driven by 1), which feeds the
   * singleton fragment 3 by SIMPLE.
   */
  static JobDefinition job(int jobId, String name, int vnodeCount, int splits) {
    int t = jobId * 1000;
    PlanNode source = PlanNode.newBuilder().setId(0)
        .setSource(SourceNode.newBuilder().setConnector("nexmark").setTable("bid").setSplitCount(splits).setStateTableId(t)).build();
    PlanNode merge1 = PlanNode.newBuilder().setId(10).setMerge(MergeNode.newBuilder().setUpstreamFragmentId(SOURCE)).build();
    PlanNode agg = PlanNode.newBuilder().setId(1).addInputs(10).setHashAgg(HashAggNode.newBuilder().addGroupKeys(0).setResultTableId(t + 1)).build();
    PlanNode merge2 = PlanNode.newBuilder().setId(11).setMerge(MergeNode.newBuilder().setUpstreamFragmentId(AGG)).build();
    PlanNode mv = PlanNode.newBuilder().setId(2).addInputs(11).setMaterialize(MaterializeNode.newBuilder().setName(name).setTableId(t + 2)).build();
    PlanNode merge3 = PlanNode.newBuilder().setId(12).setMerge(MergeNode.newBuilder().setUpstreamFragmentId(MIRROR)).build();
    PlanNode top = PlanNode.newBuilder().setId(3).addInputs(12).setMaterialize(MaterializeNode.newBuilder().setName(name + "_top").setTableId(t + 3)).build();
    return JobDefinition.newBuilder().setJobId(jobId).setName(name).setVnodeCount(vnodeCount)
        .addFragments(Fragment.newBuilder().setFragmentId(SOURCE).setHasSource(true).addNodes(source).addStateTableIds(t))
        .addFragments(Fragment.newBuilder().setFragmentId(AGG).addNodes(merge1).addNodes(agg).addDistKey(0).addStateTableIds(t + 1))
        .addFragments(Fragment.newBuilder().setFragmentId(MIRROR).addNodes(merge2).addNodes(mv).addStateTableIds(t + 2))
        .addFragments(Fragment.newBuilder().setFragmentId(SINGLE).setSingleton(true).addNodes(merge3).addNodes(top).addStateTableIds(t + 3))
        .addEdges(FragmentEdge.newBuilder().setUpstreamFragmentId(SOURCE).setDownstreamFragmentId(AGG).setType(DispatchType.HASH).addDistKey(0))
        .addEdges(FragmentEdge.newBuilder().setUpstreamFragmentId(AGG).setDownstreamFragmentId(MIRROR).setType(DispatchType.NO_SHUFFLE))
        .addEdges(FragmentEdge.newBuilder().setUpstreamFragmentId(MIRROR).setDownstreamFragmentId(SINGLE).setType(DispatchType.SIMPLE))
        .build();
  }
}
