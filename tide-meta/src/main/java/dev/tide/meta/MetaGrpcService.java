package dev.tide.meta;

import dev.tide.proto.stream.Ack;
import dev.tide.proto.stream.BarrierRequest;
import dev.tide.proto.stream.CollectedReport;
import dev.tide.proto.stream.FailureReport;
import dev.tide.proto.stream.HeartbeatRequest;
import dev.tide.proto.stream.HeartbeatResponse;
import dev.tide.proto.stream.MetaServiceGrpc;
import dev.tide.proto.stream.RegisterWorkerRequest;
import dev.tide.proto.stream.RegisterWorkerResponse;
import dev.tide.proto.stream.SstIdRequest;
import dev.tide.proto.stream.SstIdResponse;
import io.grpc.Status;
import io.grpc.stub.StreamObserver;

/** The meta service as compute nodes call it: a thin adapter onto {@link Meta}. */
public final class MetaGrpcService extends MetaServiceGrpc.MetaServiceImplBase {
  private final Meta meta;

  public MetaGrpcService(Meta meta) {
    this.meta = meta;
  }

  @Override
  public void registerWorker(RegisterWorkerRequest req, StreamObserver<RegisterWorkerResponse> out) {
    try {
      int id = meta.registerWorker(req.getHost(), req.getSlots());
      out.onNext(RegisterWorkerResponse.newBuilder().setWorkerId(id).setVersion(meta.committedVersion()).build());
      out.onCompleted();
    } catch (IllegalArgumentException e) {
      out.onError(Status.INVALID_ARGUMENT.withDescription(e.getMessage()).asRuntimeException());
    }
  }

  @Override
  public void reportCollected(CollectedReport req, StreamObserver<Ack> out) {
    meta.collected(req.getWorkerId(), req.getRunId(), req.getEpoch(), req.getSstsList());
    ack(out);
  }

  @Override
  public void reportFailure(FailureReport req, StreamObserver<Ack> out) {
    meta.failed(req.getWorkerId(), req.getActorId(), req.getError());
    ack(out);
  }

  @Override
  public void allocateSstIds(SstIdRequest req, StreamObserver<SstIdResponse> out) {
    int n = req.getCount();
    if (n < 1 || n > 100_000) {
      out.onError(Status.INVALID_ARGUMENT.withDescription("sst id count " + n + " must be between 1 and 100000").asRuntimeException());
      return;
    }
    out.onNext(SstIdResponse.newBuilder().setFirstId(meta.allocateSstIds(n)).setCount(n).build());
    out.onCompleted();
  }

  @Override
  public void heartbeat(HeartbeatRequest req, StreamObserver<HeartbeatResponse> out) {
    out.onNext(HeartbeatResponse.newBuilder().setRegistered(meta.heartbeat(req.getWorkerId(), req.getActors(), req.getMinReaderVersion())).build());
    out.onCompleted();
  }

  @Override
  public void requestBarrier(BarrierRequest req, StreamObserver<Ack> out) {
    meta.barrierRequested(req.getWorkerId(), req.getActorId());
    ack(out);
  }

  private static void ack(StreamObserver<Ack> out) {
    out.onNext(Ack.getDefaultInstance());
    out.onCompleted();
  }
}
