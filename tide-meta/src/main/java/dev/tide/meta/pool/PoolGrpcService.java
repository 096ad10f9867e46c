package dev.tide.meta.pool;

import dev.tide.meta.core.MetaCore.WorkerHealth;
import dev.tide.meta.group.GroupGrpcService;
import dev.tide.optimizer.dra.InstanceView;
import dev.tide.proto.group.PoolNode;
import dev.tide.proto.group.PoolRequest;
import dev.tide.proto.group.PoolServiceGrpc;
import dev.tide.proto.group.PoolView;
import io.grpc.Status;
import io.grpc.stub.StreamObserver;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.function.Supplier;

/** The compute pool's API ({@code tide ctl pool show}); a meta without a pool answers {@code enabled = false}. */
public final class PoolGrpcService extends PoolServiceGrpc.PoolServiceImplBase {
  private final Supplier<Optional<ComputePool>> pool;
  private final Supplier<java.util.List<WorkerHealth>> workers;

  public PoolGrpcService(Supplier<Optional<ComputePool>> pool, Supplier<java.util.List<WorkerHealth>> workers) {
    this.pool = pool;
    this.workers = workers;
  }

  @Override
  public void show(PoolRequest req, StreamObserver<PoolView> out) {
    try {
      Optional<ComputePool> p = pool.get();
      if (p.isEmpty()) {
        out.onNext(PoolView.newBuilder().setEnabled(false).build());
        out.onCompleted();
        return;
      }
      ComputeDemand d = p.get().demand();
      Map<String, Integer> wanted = new TreeMap<>();
      for (InstanceView i : d.instances()) {
        wanted.put(i.instanceId(), i.inFlightTasks());
      }
      PoolView.Builder b = PoolView.newBuilder().setEnabled(true).setPool(GroupGrpcService.view(p.get().view()))
          .setWantedSlots(d.wantedSlots());
      for (WorkerHealth w : workers.get()) {
        if (w.state().equals("lost")) {
          continue;
        }
        b.addNodes(PoolNode.newBuilder().setWorkerId(w.worker().id()).setResourceId(w.resourceId()).setSlots(w.worker().slots())
            .setWantedSlots(w.state().equals("active") ? wanted.getOrDefault(ComputeDemand.instanceId(w.worker().id()), 0) : 0)
            .setState(w.state()));
      }
      out.onNext(b.build());
      out.onCompleted();
    } catch (RuntimeException e) {
      out.onError(Status.UNAVAILABLE.withDescription("pool show failed: " + e.getMessage()).asRuntimeException());
    }
  }
}
