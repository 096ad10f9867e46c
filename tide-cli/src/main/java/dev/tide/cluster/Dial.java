package dev.tide.cluster;

import dev.tide.common.auth.ClusterToken;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import java.util.Optional;

/** Channels between the processes of a cluster: plaintext gRPC carrying the cluster token, if any. */
public final class Dial {
  private Dial() {}

  /** A channel builder to {@code target} ({@code host:port}) whose every call carries {@code token}. */
  public static NettyChannelBuilder to(String target, Optional<ClusterToken> token) {
    NettyChannelBuilder b = NettyChannelBuilder.forTarget(target).usePlaintext();
    token.ifPresent(t -> b.intercept(t.clientInterceptor()));
    return b;
  }
}
