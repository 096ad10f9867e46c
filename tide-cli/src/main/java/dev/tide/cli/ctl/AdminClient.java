package dev.tide.cli.ctl;

import dev.tide.cluster.Dial;
import dev.tide.common.auth.ClusterToken;
import dev.tide.proto.admin.AdminServiceGrpc;
import dev.tide.proto.group.GroupServiceGrpc;
import dev.tide.proto.group.TableServiceGrpc;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;
import java.util.logging.Logger;
import java.util.regex.Pattern;

/**
 * A connection to meta's admin API for one {@code tide ctl} command: plaintext gRPC, every call with
 * a deadline so that a meta that accepts but never answers cannot hang the command.
 */
final class AdminClient implements AutoCloseable {
  /** Longest wait for one answer; a reschedule returns once it is queued, not once it commits. */
  static final Duration CALL_TIMEOUT = Duration.ofSeconds(30);

  /** The native call Netty names before the reason, e.g. {@code "finishConnect(..) failed with error(-111): "}. */
  private static final Pattern NATIVE_CALL = Pattern.compile("^\\w+\\(\\.\\.\\) failed( with error\\(-?\\d+\\))?: ");

  /**
   * gRPC logs through java.util.logging, which prints multi-line warnings with stack traces (e.g. on
   * an unknown host) to stderr; the command's one error line says it all. Held strongly: JUL keeps
   * its loggers weakly, and a collected logger would forget its level.
   */
  private static final Logger GRPC_LOG = Logger.getLogger("io.grpc");

  static {
    if (System.getenv("TIDE_DEBUG") == null) {
      GRPC_LOG.setLevel(Level.OFF);
    }
  }

  private final MetaAddress address;
  private final ManagedChannel channel;

  AdminClient(MetaAddress address, Optional<ClusterToken> token) {
    this.address = address;
    this.channel = Dial.to(address.toString(), token).build();
  }

  dev.tide.proto.admin.JobServiceGrpc.JobServiceBlockingStub jobs() {
    return dev.tide.proto.admin.JobServiceGrpc.newBlockingStub(channel).withDeadlineAfter(CALL_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
  }

  AdminServiceGrpc.AdminServiceBlockingStub admin() {
    return AdminServiceGrpc.newBlockingStub(channel).withDeadlineAfter(CALL_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
  }

  dev.tide.proto.admin.ViewServiceGrpc.ViewServiceBlockingStub views() {
    return dev.tide.proto.admin.ViewServiceGrpc.newBlockingStub(channel).withDeadlineAfter(CALL_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
  }

  GroupServiceGrpc.GroupServiceBlockingStub groups() {
    return GroupServiceGrpc.newBlockingStub(channel).withDeadlineAfter(CALL_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
  }

  TableServiceGrpc.TableServiceBlockingStub tables() {
    return TableServiceGrpc.newBlockingStub(channel).withDeadlineAfter(CALL_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
  }

  /**
   * The one line shown for a failed call: the server's refusal as it worded it, or why meta could
   * not be reached at all.
   */
  static String errorLine(StatusRuntimeException e, MetaAddress address) {
    Status s = e.getStatus();
    return switch (s.getCode()) {
      case UNAVAILABLE -> "cannot reach meta at " + address + ": " + reason(e);
      case DEADLINE_EXCEEDED -> "error: meta at " + address + " did not answer within " + CALL_TIMEOUT.toSeconds()
          + "s; the request may still take effect (check with 'tide ctl cluster')";
      default -> "error: " + (s.getDescription() == null || s.getDescription().isBlank() ? s.getCode().toString() : s.getDescription());
    };
  }

  /** The innermost cause's message (e.g. "Connection refused"), without the address Netty appends. */
  private static String reason(StatusRuntimeException e) {
    Throwable t = e;
    while (t.getCause() != null) {
      t = t.getCause();
    }
    String m = t == e ? e.getStatus().getDescription() : t.getMessage();
    if (m == null || m.isBlank()) {
      m = e.getStatus().getDescription() != null ? e.getStatus().getDescription() : "unavailable";
    }
    int addr = m.indexOf(": /");
    if (addr > 0) {
      m = m.substring(0, addr);
    }
    m = NATIVE_CALL.matcher(m).replaceFirst("");
    return m.lines().findFirst().orElse(m).strip();
  }

  MetaAddress address() {
    return address;
  }

  @Override
  public void close() {
    channel.shutdownNow();
    try {
      channel.awaitTermination(2, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
