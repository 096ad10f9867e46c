package dev.tide.meta;

import dev.tide.meta.core.Command;
import dev.tide.proto.stream.Ack;
import dev.tide.proto.stream.BarrierRequest;
import dev.tide.proto.stream.CollectedReport;
import dev.tide.proto.stream.FailureReport;
import dev.tide.proto.stream.HeartbeatRequest;
import dev.tide.proto.stream.HeartbeatResponse;
import dev.tide.proto.stream.LeaveRequest;
import dev.tide.proto.stream.LeaveResponse;
import dev.tide.proto.stream.MetaServiceGrpc;
import dev.tide.proto.stream.PassedReport;
import dev.tide.proto.stream.RegisterWorkerRequest;
import dev.tide.proto.stream.RegisterWorkerResponse;
import dev.tide.proto.stream.SstIdRequest;
import dev.tide.proto.stream.SstIdResponse;
import io.grpc.Status;
import io.grpc.stub.StreamObserver;

/** The meta service as compute nodes call it: a thin adapter onto {@link Meta}. */
public final class MetaGrpcService extends MetaServiceGrpc.MetaServiceImplBase {
  private final Meta meta;
  private final String clusterId;

  /** A service that sends registering nodes no cluster id to check their object store against. */
  public MetaGrpcService(Meta meta) {
    this(meta, "");
  }

  /** @param clusterId the id in meta's object store, which registering nodes check theirs against */
  public MetaGrpcService(Meta meta, String clusterId) {
    this.meta = meta;
    this.clusterId = clusterId;
  }

  @Override
  public void registerWorker(RegisterWorkerRequest req, StreamObserver<RegisterWorkerResponse> out) {
    try {
      Command.Registered r = meta.register(req.getHost(), req.getSlots(), req.getResourceId());
      out.onNext(RegisterWorkerResponse.newBuilder().setWorkerId(r.workerId()).setVersion(r.version()).setClusterId(clusterId)
          .build());
      out.onCompleted();
    } catch (IllegalArgumentException e) {
      out.onError(Status.INVALID_ARGUMENT.withDescription(e.getMessage()).asRuntimeException());
    } catch (IllegalStateException e) {
      out.onError(Status.UNAVAILABLE.withDescription(e.getMessage()).asRuntimeException());
    }
  }

  @Override
  public void reportCollected(CollectedReport req, StreamObserver<Ack> out) {
    meta.collected(req.getWorkerId(), req.getRunId(), req.getEpoch(), req.getSstsList(), req.getLoadsList());
    ack(out);
  }

  @Override
  public void reportPassed(PassedReport req, StreamObserver<Ack> out) {
    meta.passed(req.getWorkerId(), req.getRunId(), req.getEpoch());
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
    Command.Verdict v;
    try {
      v = meta.heartbeat(req.getWorkerId(), req.getActors(), req.getMinReaderVersion());
    } catch (IllegalStateException e) {
      out.onError(Status.UNAVAILABLE.withDescription(e.getMessage()).asRuntimeException());
      return;
    }
    out.onNext(HeartbeatResponse.newBuilder().setRegistered(v != Command.Verdict.REGISTER_AGAIN).setLeave(v == Command.Verdict.LEAVE).build());
    out.onCompleted();
  }

  @Override
  public void requestBarrier(BarrierRequest req, StreamObserver<Ack> out) {
    meta.barrierRequested(req.getWorkerId(), req.getActorId());
    ack(out);
  }

  @Override
  public void leave(LeaveRequest req, StreamObserver<LeaveResponse> out) {
    LeaveResponse.Builder r = LeaveResponse.newBuilder().setAccepted(true);
    try {
      meta.drainWorker(req.getWorkerId());
    } catch (IllegalArgumentException | IllegalStateException e) {
      r.setAccepted(false).setReason(e.getMessage());
    }
    out.onNext(r.build());
    out.onCompleted();
  }

  private static void ack(StreamObserver<Ack> out) {
    out.onNext(Ack.getDefaultInstance());
    out.onCompleted();
  }
}
