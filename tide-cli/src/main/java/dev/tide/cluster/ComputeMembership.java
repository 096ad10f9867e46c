package dev.tide.cluster;

import dev.tide.proto.stream.HeartbeatRequest;
import dev.tide.proto.stream.MetaServiceGrpc;
import dev.tide.proto.stream.RegisterWorkerRequest;
import dev.tide.proto.stream.RegisterWorkerResponse;
import dev.tide.stream.node.ComputeNode;
import io.grpc.StatusRuntimeException;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A compute node's membership in the cluster: it registers the node with meta, then sends a
 * heartbeat every {@code interval}. When meta answers that it no longer knows the worker (it was
 * declared lost, e.g. after a long pause or a network cut), the node stops its actors and registers
 * again under a new worker id, starting from the committed version meta returns.
 */
public final class ComputeMembership implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(ComputeMembership.class);

  private final ComputeNode node;
  private final MetaServiceGrpc.MetaServiceBlockingStub meta;
  private final String address;
  private final int slots;
  private final Duration interval;
  private final ScheduledExecutorService timer;
  private boolean metaUnreachable;

  private ComputeMembership(ComputeNode node, MetaServiceGrpc.MetaServiceBlockingStub meta, String address, int slots, Duration interval) {
    this.node = node;
    this.meta = meta;
    this.address = address;
    this.slots = slots;
    this.interval = interval;
    this.timer = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, node.name() + "-heartbeat");
      t.setDaemon(true);
      return t;
    });
  }

  /**
   * Registers {@code node}, reachable by meta at {@code address}, and starts its heartbeats.
   *
   * @throws StatusRuntimeException when meta refuses or cannot be reached within {@code registerTimeout}
   */
  public static ComputeMembership join(ComputeNode node, MetaServiceGrpc.MetaServiceBlockingStub meta, String address, int slots,
      Duration interval, Duration registerTimeout) {
    ComputeMembership m = new ComputeMembership(node, meta, address, slots, interval);
    m.register(registerTimeout);
    m.timer.scheduleWithFixedDelay(m::beat, interval.toMillis(), interval.toMillis(), TimeUnit.MILLISECONDS);
    return m;
  }

  private void register(Duration timeout) {
    RegisterWorkerResponse r = meta.withWaitForReady().withDeadlineAfter(timeout.toMillis(), TimeUnit.MILLISECONDS)
        .registerWorker(RegisterWorkerRequest.newBuilder().setHost(address).setSlots(slots).build());
    node.setWorkerId(r.getWorkerId());
    node.store().reset(r.getVersion());
    LOG.info("{} registered as worker {} with {} slots at committed epoch {}", node.name(), r.getWorkerId(), slots,
        r.getVersion().getMaxCommittedEpoch());
  }

  private void beat() {
    try {
      // waitForReady: a call made while the channel backs off after meta went away waits for (and
      // triggers) the reconnect instead of failing at once.
      boolean known = meta.withWaitForReady().withDeadlineAfter(Math.max(1000, interval.toMillis() * 5), TimeUnit.MILLISECONDS)
          .heartbeat(HeartbeatRequest.newBuilder().setWorkerId(node.workerId()).setActors(node.actorCount())
              .setMinReaderVersion(node.store().minPinnedVersionId()).build())
          .getRegistered();
      if (metaUnreachable) {
        LOG.info("{}: meta is reachable again", node.name());
        metaUnreachable = false;
      }
      if (!known) {
        LOG.warn("{}: meta no longer knows worker {}; stopping its actors and registering again", node.name(), node.workerId());
        node.stopAll();
        register(Duration.ofSeconds(30));
      }
    } catch (StatusRuntimeException e) {
      if (!metaUnreachable) {
        LOG.warn("{}: heartbeat to meta failed: {}; retrying every {} ms", node.name(), e.getStatus(), interval.toMillis());
        metaUnreachable = true;
      }
    } catch (RuntimeException e) {
      LOG.error("{}: heartbeat step failed", node.name(), e);
    }
  }

  /** Stops the heartbeats (the node leaves silently; meta declares it lost after its timeout). */
  @Override
  public void close() {
    timer.shutdownNow();
  }
}
