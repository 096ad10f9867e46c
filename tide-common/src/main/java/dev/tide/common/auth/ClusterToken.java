package dev.tide.common.auth;

import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientCall;
import io.grpc.ClientInterceptor;
import io.grpc.ForwardingClientCall;
import io.grpc.MethodDescriptor;
import io.grpc.ForwardingServerCallListener;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.Status;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.Optional;

/**
 * The shared secret every process of a cluster presents on every call: gRPC metadata
 * {@code authorization: Bearer <token>}, and the same HTTP header. {@link #toString} never shows
 * the secret, so a token cannot reach a log by accident.
 *
 * <p>A cluster without a token is allowed only when every server binds to loopback (the
 * playground); {@link #requireForBind} enforces that at start.
 */
public final class ClusterToken {
  /** Environment variable the commands read when no {@code --token} is given. */
  public static final String ENV = "TIDE_TOKEN";
  public static final Metadata.Key<String> HEADER = Metadata.Key.of("authorization", Metadata.ASCII_STRING_MARSHALLER);
  private static final String SCHEME = "Bearer ";
  private static final int MIN_LENGTH = 16;

  private final byte[] secret;

  private ClusterToken(String secret) {
    this.secret = secret.getBytes(StandardCharsets.UTF_8);
  }

  /**
   * A token from its text.
   *
   * @throws IllegalArgumentException when it is shorter than 16 characters or holds characters
   *     other than printable ASCII (a header cannot carry them)
   */
  public static ClusterToken of(String secret) {
    if (secret == null || secret.length() < MIN_LENGTH) {
      throw new IllegalArgumentException("the cluster token must have at least " + MIN_LENGTH
          + " characters; generate one with e.g. 'openssl rand -hex 24'");
    }
    if (!secret.chars().allMatch(c -> c > 0x20 && c < 0x7f)) {
      throw new IllegalArgumentException("the cluster token may hold only printable ASCII characters without spaces");
    }
    return new ClusterToken(secret);
  }

  /** The token given by flag, else by {@value #ENV}, else none. Blank counts as not given. */
  public static Optional<ClusterToken> resolve(String flag) {
    String t = flag != null && !flag.isBlank() ? flag : System.getenv(ENV);
    return t == null || t.isBlank() ? Optional.empty() : Optional.of(of(t.strip()));
  }

  /**
   * Refuses to serve without a token on a non-loopback address.
   *
   * @throws IllegalArgumentException naming the address and the fix
   */
  public static void requireForBind(Optional<ClusterToken> token, java.net.InetAddress bind, String what) {
    if (token.isEmpty() && !bind.isLoopbackAddress()) {
      throw new IllegalArgumentException(what + " binds " + bind.getHostAddress()
          + ", which is not loopback, without a cluster token: set --token or " + ENV + " (or bind 127.0.0.1)");
    }
  }

  /** True when {@code header} (an authorization header value, may be null) carries this token. */
  public boolean accepts(String header) {
    if (header == null || !header.startsWith(SCHEME)) {
      return false;
    }
    return MessageDigest.isEqual(secret, header.substring(SCHEME.length()).getBytes(StandardCharsets.UTF_8));
  }

  /** The header value to send. */
  public String header() {
    return SCHEME + new String(secret, StandardCharsets.UTF_8);
  }

  /** Client side: attaches the token to every call made through a channel ({@code builder.intercept(...)}). */
  public ClientInterceptor clientInterceptor() {
    String value = header();
    return new ClientInterceptor() {
      @Override
      public <Q, R> ClientCall<Q, R> interceptCall(MethodDescriptor<Q, R> method, CallOptions options, Channel next) {
        return new ForwardingClientCall.SimpleForwardingClientCall<>(next.newCall(method, options)) {
          @Override
          public void start(Listener<R> listener, Metadata headers) {
            headers.put(HEADER, value);
            super.start(listener, headers);
          }
        };
      }
    };
  }

  /** Server side: refuses calls without this token with UNAUTHENTICATED before any handler runs. */
  public ServerInterceptor interceptor() {
    return new ServerInterceptor() {
      @Override
      public <Q, R> ServerCall.Listener<Q> interceptCall(ServerCall<Q, R> call, Metadata headers, ServerCallHandler<Q, R> next) {
        String got = headers.get(HEADER);
        if (!accepts(got)) {
          call.close(Status.UNAUTHENTICATED.withDescription(got == null
              ? "this cluster requires a token: pass --token or set " + ENV
              : "wrong cluster token: pass the token the cluster was started with (--token or " + ENV + ")"), new Metadata());
          return new ServerCall.Listener<>() {};
        }
        return new ForwardingServerCallListener.SimpleForwardingServerCallListener<>(next.startCall(call, headers)) {};
      }
    };
  }

  @Override
  public String toString() {
    return "ClusterToken(****)";
  }
}
