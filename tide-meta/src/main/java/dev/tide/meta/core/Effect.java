package dev.tide.meta.core;

import dev.tide.meta.store.IdKind;
import dev.tide.meta.store.JobRecord;
import dev.tide.meta.store.LayoutUpdate;
import dev.tide.meta.store.WorkerRecord;
import dev.tide.proto.store.SstInfo;
import dev.tide.proto.store.StoreVersion;
import dev.tide.proto.stream.BuildActorsRequest;
import dev.tide.proto.stream.CommitVersionRequest;
import dev.tide.proto.stream.InjectBarrierRequest;
import dev.tide.proto.stream.ResetRequest;
import java.util.List;

/**
 * What the core asks its driver to do, in order. A driver executes a step's effects in the order
 * given: a {@link Persist} is durable before any later effect runs; if one fails, the driver runs
 * nothing after it and rebuilds the core from the store (as a restarted meta would).
 */
public sealed interface Effect {
  /** One meta-store transaction. */
  record Persist(Write write) implements Effect {}

  /** Open a channel to a worker's stream service. */
  record Connect(int workerId, String address) implements Effect {}

  /** Close the channel to a worker; later calls to it fail. */
  record Disconnect(int workerId) implements Effect {}

  /** One RPC to a worker's stream service; its outcome comes back as an {@link Event.CallDone} with {@code token}. */
  record Call(long token, int workerId, Rpc rpc) implements Effect {}

  /** An epoch committed (for listeners: metrics, progress); nothing to do. */
  record Committed(long epoch, long barrierLatencyMs) implements Effect {}

  /** The answer to a {@link Event.Request}: {@code error} null means success with {@code value}. */
  record Reply(long requestId, Object value, RuntimeException error) implements Effect {}

  /** The stream-service RPCs meta makes. */
  sealed interface Rpc {
    record Build(BuildActorsRequest request) implements Rpc {}

    record Inject(InjectBarrierRequest request) implements Rpc {}

    record CommitVersion(CommitVersionRequest request) implements Rpc {}

    record Reset(ResetRequest request) implements Rpc {}
  }

  /** The meta-store transactions the core makes (see {@link dev.tide.meta.store.MetaStore}). */
  sealed interface Write {
    record PutJob(JobRecord job) implements Write {}

    record DeleteJob(int jobId) implements Write {}

    record SetPaused(int jobId, boolean paused) implements Write {}

    record PutWorker(WorkerRecord worker) implements Write {}

    record DeleteWorker(int workerId) implements Write {}

    record CommitVersion(StoreVersion version, List<LayoutUpdate> layouts) implements Write {}

    record CommitCompaction(StoreVersion version, List<SstInfo> dropped) implements Write {}

    record PutCatalog(dev.tide.meta.store.CatalogRecord record) implements Write {}

    record DeleteCatalog(String name) implements Write {}

    /**
     * Reserves {@code count} ids of {@code kind}; the store must hand out {@code expectedFirst} (anything
     * else means another meta writes the same store, and the driver stops).
     */
    record Reserve(IdKind kind, long expectedFirst, int count) implements Write {}
  }
}
