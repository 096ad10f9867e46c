package dev.tide.meta.optimize;

import dev.tide.optimizer.workload.TaskNotHeldException;
import dev.tide.optimizer.workload.TaskSpec;
import dev.tide.optimizer.workload.TaskView;
import dev.tide.optimizer.workload.UnknownInstanceException;
import dev.tide.proto.optimizer.AckRequest;
import dev.tide.proto.optimizer.CompactionTask;
import dev.tide.proto.optimizer.CompleteRequest;
import dev.tide.proto.optimizer.HeartbeatRequest;
import dev.tide.proto.optimizer.OptimizerAck;
import dev.tide.proto.optimizer.OptimizerServiceGrpc;
import dev.tide.proto.optimizer.PollRequest;
import dev.tide.proto.optimizer.PollResponse;
import dev.tide.proto.optimizer.RegisterRequest;
import dev.tide.proto.optimizer.RegisterResponse;
import dev.tide.proto.optimizer.SstIdsRequest;
import dev.tide.proto.optimizer.SstIdsResponse;
import dev.tide.proto.optimizer.UnregisterRequest;
import io.grpc.Status;
import io.grpc.stub.StreamObserver;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * The optimizer protocol ({@code optimizer.proto}) as optimizer instances call it: a thin adapter
 * onto {@link OptimizingService}. Errors map to statuses: bad input INVALID_ARGUMENT, wrong token
 * PERMISSION_DENIED, unknown instance NOT_FOUND (register again), a task no longer held
 * FAILED_PRECONDITION (drop the result).
 */
public final class OptimizerGrpcService extends OptimizerServiceGrpc.OptimizerServiceImplBase {
  private static final OptimizerAck ACK = OptimizerAck.getDefaultInstance();
  private final OptimizingService service;
  private final String clusterId;

  /** A service that sends registering optimizers no cluster id to check their object store against. */
  public OptimizerGrpcService(OptimizingService service) {
    this(service, "");
  }

  /** @param clusterId the id in meta's object store, which registering optimizers check theirs against */
  public OptimizerGrpcService(OptimizingService service, String clusterId) {
    this.service = service;
    this.clusterId = clusterId;
  }

  @Override
  public void register(RegisterRequest req, StreamObserver<RegisterResponse> out) {
    answer(out, () -> {
      String id = service.register(req.getGroup(), req.getThreads(),
          req.getResourceId().isEmpty() ? Optional.empty() : Optional.of(req.getResourceId()), req.getToken());
      return RegisterResponse.newBuilder().setInstanceId(id).setHeartbeatIntervalMs(service.heartbeatIntervalMs(id))
          .setClusterId(clusterId).build();
    });
  }

  @Override
  public void poll(PollRequest req, StreamObserver<PollResponse> out) {
    answer(out, () -> {
      Optional<TaskView> task = service.poll(req.getInstanceId(), req.getThread());
      return task.map(t -> PollResponse.newBuilder().setHasTask(true).setTask(toProto(t, service.options().objectPrefix())).build())
          .orElse(PollResponse.getDefaultInstance());
    });
  }

  @Override
  public void ack(AckRequest req, StreamObserver<OptimizerAck> out) {
    answer(out, () -> {
      service.ack(req.getInstanceId(), req.getTaskId(), req.getAttempt());
      return ACK;
    });
  }

  @Override
  public void complete(CompleteRequest req, StreamObserver<OptimizerAck> out) {
    answer(out, () -> {
      service.complete(req.getInstanceId(), req.getTaskId(), req.getAttempt(), req.getOutputsList(), req.getError());
      return ACK;
    });
  }

  @Override
  public void heartbeat(HeartbeatRequest req, StreamObserver<OptimizerAck> out) {
    answer(out, () -> {
      service.heartbeat(req.getInstanceId());
      return ACK;
    });
  }

  @Override
  public void allocateSstIds(SstIdsRequest req, StreamObserver<SstIdsResponse> out) {
    answer(out, () -> {
      int n = req.getCount();
      if (n < 1 || n > 10_000) {
        throw new IllegalArgumentException("sst id count " + n + " must be between 1 and 10000");
      }
      return SstIdsResponse.newBuilder().setFirstId(service.allocateSstIds(req.getInstanceId(), n)).setCount(n).build();
    });
  }

  @Override
  public void unregister(UnregisterRequest req, StreamObserver<OptimizerAck> out) {
    answer(out, () -> {
      service.unregister(req.getInstanceId());
      return ACK;
    });
  }

  static CompactionTask toProto(TaskView t, String objectPrefix) {
    TaskSpec s = t.spec();
    return CompactionTask.newBuilder().setTaskId(t.taskId()).setAttempt(t.attempt()).setTableId((int) s.tableId())
        .addAllInputs(s.inputs()).setFromKey(s.fromKey()).setToKey(s.toKey()).setDropTombstones(s.dropTombstones())
        .setTargetFileBytes(s.targetFileBytes()).setObjectPrefix(objectPrefix).build();
  }

  private static <T> void answer(StreamObserver<T> out, Supplier<T> work) {
    T reply;
    try {
      reply = work.get();
    } catch (UnknownInstanceException e) {
      out.onError(Status.NOT_FOUND.withDescription(e.getMessage()).asRuntimeException());
      return;
    } catch (TaskNotHeldException e) {
      out.onError(Status.FAILED_PRECONDITION.withDescription(e.getMessage()).asRuntimeException());
      return;
    } catch (SecurityException e) {
      out.onError(Status.PERMISSION_DENIED.withDescription(e.getMessage()).asRuntimeException());
      return;
    } catch (IllegalArgumentException e) {
      out.onError(Status.INVALID_ARGUMENT.withDescription(e.getMessage()).asRuntimeException());
      return;
    } catch (RuntimeException e) {
      out.onError(Status.INTERNAL.withDescription(String.valueOf(e)).asRuntimeException());
      return;
    }
    out.onNext(reply);
    out.onCompleted();
  }
}
