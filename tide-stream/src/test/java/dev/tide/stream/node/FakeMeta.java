package dev.tide.stream.node;

import dev.tide.proto.stream.Ack;
import dev.tide.proto.stream.BarrierRequest;
import dev.tide.proto.stream.CollectedReport;
import dev.tide.proto.stream.FailureReport;
import dev.tide.proto.stream.MetaServiceGrpc;
import dev.tide.proto.stream.SstIdRequest;
import dev.tide.proto.stream.SstIdResponse;
import io.grpc.ManagedChannel;
import io.grpc.Server;
import io.grpc.inprocess.InProcessChannelBuilder;
import io.grpc.inprocess.InProcessServerBuilder;
import java.io.IOException;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The meta service as compute nodes call it, in memory: hands out SST ids and records collected
 * epochs, failures and barrier requests. It never commits: the nodes keep every write readable in their buffers.
 */
final class FakeMeta extends MetaServiceGrpc.MetaServiceImplBase implements AutoCloseable {
  private static final AtomicLong INSTANCES = new AtomicLong();

  record Collected(int workerId, long epoch) {}

  final Set<Collected> collected = ConcurrentHashMap.newKeySet();
  final List<FailureReport> failures = new CopyOnWriteArrayList<>();
  final List<BarrierRequest> barrierRequests = new CopyOnWriteArrayList<>();
  private final AtomicLong nextSstId = new AtomicLong(1);
  private final Server server;
  private final ManagedChannel channel;

  FakeMeta() throws IOException {
    String name = "fake-meta-" + INSTANCES.incrementAndGet();
    server = InProcessServerBuilder.forName(name).addService(this).build().start();
    channel = InProcessChannelBuilder.forName(name).build();
  }

  MetaServiceGrpc.MetaServiceBlockingStub stub() {
    return MetaServiceGrpc.newBlockingStub(channel);
  }

  @Override
  public void reportCollected(CollectedReport r, io.grpc.stub.StreamObserver<Ack> done) {
    collected.add(new Collected(r.getWorkerId(), r.getEpoch()));
    done.onNext(Ack.getDefaultInstance());
    done.onCompleted();
  }

  @Override
  public void reportFailure(FailureReport r, io.grpc.stub.StreamObserver<Ack> done) {
    failures.add(r);
    done.onNext(Ack.getDefaultInstance());
    done.onCompleted();
  }

  @Override
  public void requestBarrier(BarrierRequest r, io.grpc.stub.StreamObserver<Ack> done) {
    barrierRequests.add(r);
    done.onNext(Ack.getDefaultInstance());
    done.onCompleted();
  }

  @Override
  public void allocateSstIds(SstIdRequest r, io.grpc.stub.StreamObserver<SstIdResponse> done) {
    done.onNext(SstIdResponse.newBuilder().setFirstId(nextSstId.getAndAdd(r.getCount())).setCount(r.getCount()).build());
    done.onCompleted();
  }

  @Override
  public void close() {
    channel.shutdownNow();
    server.shutdownNow();
  }
}
