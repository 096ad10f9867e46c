package dev.tide.cli.ctl;

import dev.tide.cluster.Dial;
import dev.tide.common.auth.ClusterToken;
import dev.tide.proto.admin.AdminServiceGrpc;
import dev.tide.proto.group.GroupServiceGrpc;
import dev.tide.proto.group.TableServiceGrpc;
import com.google.protobuf.Message;
import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientCall;
import io.grpc.ClientInterceptor;
import io.grpc.ClientInterceptors;
import io.grpc.ForwardingClientCall;
import io.grpc.ForwardingClientCallListener;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.time.Duration;
import java.util.Optional;
import java.util.function.Consumer;
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
  private final ManagedChannel managed;
  private final Channel channel;

  AdminClient(MetaAddress address, Optional<ClusterToken> token) {
    this(address, token, m -> {});
  }

  /** A client that hands every answer meta sends to {@code onResponse} (what {@code --json} prints). */
  AdminClient(MetaAddress address, Optional<ClusterToken> token, Consumer<Message> onResponse) {
    this.address = address;
    this.managed = SHARED.get() != null ? SHARED.get().computeIfAbsent(address + "|" + token.map(ClusterToken::header).orElse(""),
        k -> Dial.to(address.toString(), token).build()) : Dial.to(address.toString(), token).build();
    this.channel = ClientInterceptors.intercept(managed, new ClientInterceptor() {
      @Override
      public <Q, R> ClientCall<Q, R> interceptCall(MethodDescriptor<Q, R> method, CallOptions options, Channel next) {
        return new ForwardingClientCall.SimpleForwardingClientCall<>(next.newCall(method, options)) {
          @Override
          public void start(Listener<R> listener, Metadata headers) {
            super.start(new ForwardingClientCallListener.SimpleForwardingClientCallListener<>(listener) {
              @Override
              public void onMessage(R message) {
                if (message instanceof Message m) {
                  onResponse.accept(m);
                }
                super.onMessage(message);
              }
            }, headers);
          }
        };
      }
    });
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

  dev.tide.proto.group.PoolServiceGrpc.PoolServiceBlockingStub pool() {
    return dev.tide.proto.group.PoolServiceGrpc.newBlockingStub(channel).withDeadlineAfter(CALL_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
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
      case UNAVAILABLE, INTERNAL, UNKNOWN -> {
        if (answersHttp(e)) {
          yield "error: " + address + " answers HTTP, not gRPC: it is likely meta's HTTP port (meta.http-port, default 5691);"
              + " give --meta meta's gRPC port (meta.listen, default " + MetaAddress.DEFAULT + ")";
        }
        yield s.getCode() == Status.Code.UNAVAILABLE ? "error: cannot reach meta at " + address + ": " + reason(e)
            : "error: " + (s.getDescription() == null || s.getDescription().isBlank() ? s.getCode().toString() : s.getDescription());
      }
      case DEADLINE_EXCEEDED -> "error: meta at " + address + " did not answer within " + CALL_TIMEOUT.toSeconds()
          + "s; the request may still take effect (check with 'tide ctl cluster')";
      default -> "error: " + (s.getDescription() == null || s.getDescription().isBlank() ? s.getCode().toString() : s.getDescription());
    };
  }

  /** True when the peer spoke HTTP/1 where gRPC (HTTP/2) was expected, e.g. meta's HTTP port. */
  private static boolean answersHttp(StatusRuntimeException e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      String m = t instanceof StatusRuntimeException sre ? sre.getStatus().getDescription() : t.getMessage();
      String name = t.getClass().getSimpleName();
      if (name.contains("Http2Exception") || (m != null && (m.contains("HTTP/1") || m.toLowerCase(java.util.Locale.ROOT).contains("http2")))) {
        return true;
      }
    }
    return false;
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

  /** Channels kept open across the commands of one {@code tide ctl --shell}; null outside a shell. */
  private static final ThreadLocal<java.util.Map<String, ManagedChannel>> SHARED = new ThreadLocal<>();

  /** Runs {@code body} with one channel per meta address shared by its commands, closed at the end. */
  static void sharingChannels(Runnable body) {
    java.util.Map<String, ManagedChannel> channels = new java.util.HashMap<>();
    SHARED.set(channels);
    try {
      body.run();
    } finally {
      SHARED.remove();
      channels.values().forEach(ManagedChannel::shutdownNow);
    }
  }

  @Override
  public void close() {
    if (SHARED.get() != null) {
      return; // the shell closes its shared channels
    }
    managed.shutdownNow();
    try {
      managed.awaitTermination(2, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
