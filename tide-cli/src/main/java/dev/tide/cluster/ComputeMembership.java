package dev.tide.cluster;

import dev.tide.storage.object.ClusterMark;
import dev.tide.proto.stream.HeartbeatRequest;
import dev.tide.proto.stream.HeartbeatResponse;
import dev.tide.proto.stream.LeaveRequest;
import dev.tide.proto.stream.LeaveResponse;
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
 * again under a new worker id, starting from the committed version meta returns. When meta answers
 * that the worker was drained, the node leaves: it stops its actors and heartbeats and runs the
 * {@code onLeave} action (a process exits); it never registers again by itself.
 */
public final class ComputeMembership implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(ComputeMembership.class);

  private final ComputeNode node;
  private final MetaServiceGrpc.MetaServiceBlockingStub meta;
  private final String address;
  private final int slots;
  private final String resourceId;
  private final Duration interval;
  private final ScheduledExecutorService timer;
  private final Runnable onLeave;
  private boolean metaUnreachable;
  private volatile boolean left;
  private final java.util.concurrent.CountDownLatch leftLatch = new java.util.concurrent.CountDownLatch(1);

  private ComputeMembership(ComputeNode node, MetaServiceGrpc.MetaServiceBlockingStub meta, String address, int slots, String resourceId,
      Duration interval, Runnable onLeave) {
    this.node = node;
    this.resourceId = resourceId;
    this.onLeave = onLeave;
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
   * @param onLeave run once (on the heartbeat thread) after meta told the drained node to leave and
   *     its actors stopped
   * @throws StatusRuntimeException when meta refuses or cannot be reached within {@code registerTimeout}
   */
  public static ComputeMembership join(ComputeNode node, MetaServiceGrpc.MetaServiceBlockingStub meta, String address, int slots,
      Duration interval, Duration registerTimeout, Runnable onLeave) {
    return join(node, meta, address, slots, "", interval, registerTimeout, onLeave);
  }

  /** Registers a node the compute pool launched for {@code resourceId} ({@code ""}: started by hand); see above. */
  public static ComputeMembership join(ComputeNode node, MetaServiceGrpc.MetaServiceBlockingStub meta, String address, int slots,
      String resourceId, Duration interval, Duration registerTimeout, Runnable onLeave) {
    ComputeMembership m = new ComputeMembership(node, meta, address, slots, resourceId, interval, onLeave);
    m.register(registerTimeout);
    m.timer.scheduleWithFixedDelay(m::beat, interval.toMillis(), interval.toMillis(), TimeUnit.MILLISECONDS);
    return m;
  }

  private void register(Duration timeout) {
    RegisterWorkerResponse r = meta.withWaitForReady().withDeadlineAfter(timeout.toMillis(), TimeUnit.MILLISECONDS)
        .registerWorker(RegisterWorkerRequest.newBuilder().setHost(address).setSlots(slots).setResourceId(resourceId).build());
    if (!r.getClusterId().isEmpty()) {
      ClusterMark.check(node.objects(), r.getClusterId(), "compute");
    }
    node.setWorkerId(r.getWorkerId());
    node.store().reset(r.getVersion());
    LOG.info("{} registered as worker {} with {} slots at committed epoch {}", node.name(), r.getWorkerId(), slots,
        r.getVersion().getMaxCommittedEpoch());
  }

  private void beat() {
    try {
      // waitForReady: a call made while the channel backs off after meta went away waits for (and
      // triggers) the reconnect instead of failing at once.
      if (left) {
        return;
      }
      HeartbeatResponse r = meta.withWaitForReady().withDeadlineAfter(Math.max(1000, interval.toMillis() * 5), TimeUnit.MILLISECONDS)
          .heartbeat(HeartbeatRequest.newBuilder().setWorkerId(node.workerId()).setActors(node.actorCount())
              .setMinReaderVersion(node.store().minPinnedVersionId()).build());
      if (metaUnreachable) {
        LOG.info("{}: meta is reachable again", node.name());
        metaUnreachable = false;
      }
      if (r.getLeave()) {
        left = true;
        LOG.info("{}: worker {} was drained (it hosts no actor); leaving the cluster", node.name(), node.workerId());
        node.stopAll();
        timer.shutdown();
        leftLatch.countDown();
        onLeave.run();
      } else if (!r.getRegistered()) {
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

  /**
   * Leaves gracefully: asks meta to drain this node and waits, at most {@code timeout}, until meta
   * tells it to leave (its actors then run elsewhere, migrated online). False when meta refused
   * (the reason is logged), could not be reached, or the drain did not finish in time.
   */
  public boolean leave(Duration timeout) {
    if (left) {
      return true;
    }
    try {
      LeaveResponse r = meta.withDeadlineAfter(Math.max(1000, timeout.toMillis()), TimeUnit.MILLISECONDS)
          .leave(LeaveRequest.newBuilder().setWorkerId(node.workerId()).build());
      if (!r.getAccepted()) {
        LOG.warn("{}: meta refused to drain worker {}: {}", node.name(), node.workerId(), r.getReason());
        return false;
      }
      LOG.info("{}: draining worker {} before it stops (at most {} ms)", node.name(), node.workerId(), timeout.toMillis());
      return leftLatch.await(timeout.toMillis(), TimeUnit.MILLISECONDS);
    } catch (StatusRuntimeException e) {
      LOG.warn("{}: cannot ask meta to drain worker {}: {}", node.name(), node.workerId(), e.getStatus());
      return false;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  /** True once meta told this node to leave. */
  public boolean left() {
    return left;
  }

  /** Stops the heartbeats (the node leaves silently; meta declares it lost after its timeout). */
  @Override
  public void close() {
    timer.shutdownNow();
  }
}
