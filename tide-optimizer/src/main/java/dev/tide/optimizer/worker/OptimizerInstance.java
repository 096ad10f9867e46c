package dev.tide.optimizer.worker;

import dev.tide.proto.optimizer.AckRequest;
import dev.tide.proto.optimizer.CompactionTask;
import dev.tide.proto.optimizer.CompleteRequest;
import dev.tide.proto.optimizer.HeartbeatRequest;
import dev.tide.proto.optimizer.OptimizerServiceGrpc;
import dev.tide.proto.optimizer.PollRequest;
import dev.tide.proto.optimizer.PollResponse;
import dev.tide.proto.optimizer.RegisterRequest;
import dev.tide.proto.optimizer.RegisterResponse;
import dev.tide.proto.optimizer.SstIdsRequest;
import dev.tide.proto.optimizer.SstIdsResponse;
import dev.tide.proto.optimizer.UnregisterRequest;
import dev.tide.proto.store.SstInfo;
import dev.tide.storage.object.ClusterMark;
import dev.tide.storage.object.ObjectStore;
import dev.tide.storage.sst.BlockCache;
import io.grpc.Channel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An optimizer instance: K threads that poll meta's optimizer service for compaction tasks, ack,
 * run and complete them, plus a heartbeat thread. The same class runs in the meta JVM (over an
 * in-process channel: the {@code in-process} provider and the embedded cluster) and as the
 * {@code tide optimizer} process (over a network channel).
 *
 * <p>When meta no longer knows the instance (it expired or meta restarted), the next call registers
 * again under a new id. A completion meta refuses (the task was reclaimed meanwhile) deletes the
 * outputs it wrote: they can never be committed. The instance holds no durable state.
 *
 * <p>Thread-safety: {@link #start} and {@link #close} from one controlling thread; the rest is internal.
 */
public final class OptimizerInstance implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(OptimizerInstance.class);
  private static final int SST_ID_BLOCK = 16;

  private final OptimizerServiceGrpc.OptimizerServiceBlockingStub stub;
  private final OptimizerSettings settings;
  private final CompactionRunner runner;
  private final List<Thread> threads = new ArrayList<>();
  private final AtomicLong completed = new AtomicLong();
  private final AtomicLong refused = new AtomicLong();
  private final ObjectStore objects;
  private volatile boolean running = true;
  private volatile String instanceId;
  private volatile long heartbeatIntervalMs = 1000;
  private long nextSstId;
  private long sstIdsLeft;

  private OptimizerInstance(Channel channel, ObjectStore objects, OptimizerSettings settings) {
    this.objects = objects;
    this.stub = OptimizerServiceGrpc.newBlockingStub(channel);
    this.settings = settings;
    this.runner = new CompactionRunner(objects, new BlockCache(8L << 20));
  }

  /**
   * Registers an instance with meta over {@code channel} and starts its threads.
   *
   * @throws StatusRuntimeException if meta refuses the registration (bad group, threads or token)
   * @throws IllegalStateException if {@code objects} is not meta's object store ({@link ClusterMark})
   */
  public static OptimizerInstance start(Channel channel, ObjectStore objects, OptimizerSettings settings) {
    OptimizerInstance o = new OptimizerInstance(channel, objects, settings);
    o.register(null);
    for (int i = 0; i < settings.threads(); i++) {
      int thread = i;
      o.threads.add(daemon("optimizer-" + settings.group() + "-" + i, () -> o.workLoop(thread)));
    }
    o.threads.add(daemon("optimizer-" + settings.group() + "-heartbeat", o::heartbeatLoop));
    o.threads.forEach(Thread::start);
    return o;
  }

  private static Thread daemon(String name, Runnable r) {
    Thread t = new Thread(r, name);
    t.setDaemon(true);
    return t;
  }

  /** The current instance id (it changes when the instance registers again). */
  public String instanceId() {
    return instanceId;
  }

  public OptimizerSettings settings() {
    return settings;
  }

  /** Tasks this instance completed successfully and meta accepted. */
  public long completedTasks() {
    return completed.get();
  }

  /** Completions meta refused (the task had been reclaimed); their outputs were deleted. */
  public long refusedCompletions() {
    return refused.get();
  }

  /** Registers (again, if {@code staleId} is still the current id). */
  private synchronized void register(String staleId) {
    if (staleId != null && !staleId.equals(instanceId)) {
      return; // another thread registered already
    }
    RegisterResponse r = stub.register(RegisterRequest.newBuilder().setGroup(settings.group()).setThreads(settings.threads())
        .setResourceId(settings.resourceId()).setToken(settings.token()).build());
    if (!r.getClusterId().isEmpty()) {
      ClusterMark.check(objects, r.getClusterId(), "optimizer");
    }
    instanceId = r.getInstanceId();
    heartbeatIntervalMs = Math.max(10, r.getHeartbeatIntervalMs());
    sstIdsLeft = 0;
    LOG.info("optimizer registered in group '{}' as {} with {} threads", settings.group(), instanceId, settings.threads());
  }

  private void workLoop(int thread) {
    while (running) {
      String id = instanceId;
      try {
        PollResponse r = stub.poll(PollRequest.newBuilder().setInstanceId(id).setThread(thread).build());
        if (r.getHasTask()) {
          execute(id, r.getTask());
        } else if (!pause()) {
          return;
        }
      } catch (StatusRuntimeException e) {
        if (!running) {
          return;
        }
        if (e.getStatus().getCode() == Status.Code.NOT_FOUND) {
          reRegister(id);
        } else {
          LOG.warn("optimizer {} thread {}: {}", id, thread, e.getStatus());
          if (!pause()) {
            return;
          }
        }
      } catch (RuntimeException e) {
        LOG.warn("optimizer {} thread {} failed", id, thread, e);
        if (!pause()) {
          return;
        }
      }
    }
  }

  private void execute(String id, CompactionTask task) {
    stub.ack(AckRequest.newBuilder().setInstanceId(id).setTaskId(task.getTaskId()).setAttempt(task.getAttempt()).build());
    List<SstInfo> outputs = List.of();
    CompleteRequest.Builder done = CompleteRequest.newBuilder().setInstanceId(id).setTaskId(task.getTaskId())
        .setAttempt(task.getAttempt());
    try {
      outputs = runner.run(task, () -> nextSstId(id));
      done.addAllOutputs(outputs);
    } catch (RuntimeException e) {
      if (!running) {
        return; // closing: meta reclaims the task when this instance unregisters
      }
      LOG.warn("optimizer {}: task {} of table {} failed", id, task.getTaskId(), task.getTableId(), e);
      done.setError(String.valueOf(e));
    }
    try {
      stub.complete(done.build());
      if (done.getError().isEmpty()) {
        completed.incrementAndGet();
      }
    } catch (StatusRuntimeException e) {
      Status.Code code = e.getStatus().getCode();
      if (code == Status.Code.FAILED_PRECONDITION || code == Status.Code.NOT_FOUND) {
        refused.incrementAndGet();
        runner.discard(outputs);
        LOG.info("optimizer {}: result of task {} refused ({}); its {} outputs deleted", id, task.getTaskId(),
            e.getStatus().getDescription(), outputs.size());
      }
      throw e;
    }
  }

  private synchronized long nextSstId(String id) {
    if (sstIdsLeft == 0) {
      SstIdsResponse r = stub.allocateSstIds(SstIdsRequest.newBuilder().setInstanceId(id).setCount(SST_ID_BLOCK).build());
      nextSstId = r.getFirstId();
      sstIdsLeft = r.getCount();
    }
    sstIdsLeft--;
    return nextSstId++;
  }

  private void heartbeatLoop() {
    while (running) {
      String id = instanceId;
      try {
        Thread.sleep(heartbeatIntervalMs);
        stub.heartbeat(HeartbeatRequest.newBuilder().setInstanceId(id).build());
      } catch (InterruptedException e) {
        return;
      } catch (StatusRuntimeException e) {
        if (running && e.getStatus().getCode() == Status.Code.NOT_FOUND) {
          reRegister(id);
        } else if (running) {
          LOG.warn("optimizer {}: heartbeat failed: {}", id, e.getStatus());
        }
      }
    }
  }

  private void reRegister(String staleId) {
    try {
      register(staleId);
    } catch (StatusRuntimeException e) {
      LOG.warn("optimizer registration in group '{}' failed: {}", settings.group(), e.getStatus());
      pause();
    }
  }

  /** Waits one idle-poll interval; false when interrupted (closing). */
  private boolean pause() {
    try {
      Thread.sleep(settings.idlePoll().toMillis());
      return true;
    } catch (InterruptedException e) {
      return false;
    }
  }

  /** Stops the threads (a running compaction is abandoned) and unregisters, so meta reclaims its tasks at once. */
  @Override
  public void close() {
    running = false;
    threads.forEach(Thread::interrupt);
    for (Thread t : threads) {
      try {
        t.join(TimeUnit.SECONDS.toMillis(10));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        break;
      }
    }
    try {
      stub.withDeadlineAfter(5, TimeUnit.SECONDS).unregister(UnregisterRequest.newBuilder().setInstanceId(instanceId).build());
    } catch (StatusRuntimeException e) {
      LOG.info("optimizer {}: unregister failed ({}); meta expires it", instanceId, e.getStatus());
    }
  }
}
