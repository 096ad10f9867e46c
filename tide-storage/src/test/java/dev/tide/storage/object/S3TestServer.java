package dev.tide.storage.object;

import java.net.URI;
import java.util.concurrent.atomic.AtomicInteger;
import org.gaul.s3proxy.S3Proxy;
import org.gaul.s3proxy.auth.AuthenticationType;
import org.gaul.s3proxy.nio2blob.TransientNio2BlobStore;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * An in-JVM S3 server for tests: s3proxy over a transient (in-memory) blob store, listening on a
 * free loopback port and checking V4 signatures with fixed test credentials. Buckets are created
 * by the tests through {@link #createBucket}.
 */
public final class S3TestServer implements AutoCloseable {
  public static final String ACCESS_KEY = "tide-test-access";
  public static final String SECRET_KEY = "tide-test-secret";

  private static final AtomicInteger BUCKETS = new AtomicInteger();

  private final S3Proxy proxy;
  private final URI endpoint;
  private final S3Client admin;

  private S3TestServer(S3Proxy proxy, URI endpoint) {
    this.proxy = proxy;
    this.endpoint = endpoint;
    this.admin = S3ObjectStore.newClient(config("admin-bucket"));
  }

  private static S3TestServer shared;

  /**
   * One server for every test class of this JVM (tests isolate themselves by bucket); started on
   * first use and stopped when the JVM exits.
   */
  public static synchronized S3TestServer shared() throws Exception {
    if (shared == null) {
      S3TestServer s = start();
      Runtime.getRuntime().addShutdownHook(new Thread(s::close, "s3-test-server-stop"));
      shared = s;
    }
    return shared;
  }

  /** Starts a server on a free port of 127.0.0.1. */
  public static S3TestServer start() throws Exception {
    S3Proxy proxy = S3Proxy.builder()
        .blobStore(new TransientNio2BlobStore())
        .endpoint(URI.create("http://127.0.0.1:0"))
        .awsAuthentication(AuthenticationType.AWS_V2_OR_V4, ACCESS_KEY, SECRET_KEY)
        .build();
    proxy.start();
    // start() returns once Jetty is started; the port is bound by then
    if (proxy.getPort() <= 0) {
      proxy.stop();
      throw new IllegalStateException("s3proxy did not bind a port (state " + proxy.getState()
          + ")");
    }
    return new S3TestServer(proxy, URI.create("http://127.0.0.1:" + proxy.getPort()));
  }

  public URI endpoint() {
    return endpoint;
  }

  /** Path-style config of {@code bucket} on this server with the test credentials. */
  public S3Config config(String bucket) {
    return S3Config.of("us-east-1", bucket)
        .withEndpoint(endpoint)
        .withPathStyleAccess(true)
        .withCredentials(ACCESS_KEY, SECRET_KEY);
  }

  /** Creates a bucket with a name not used before on this server and returns the name. */
  public String createBucket() {
    String name = "tide-test-" + BUCKETS.incrementAndGet();
    createBucket(name);
    return name;
  }

  public void createBucket(String name) {
    admin.createBucket(b -> b.bucket(name));
  }

  /** A client with the test credentials, for reading and writing keys behind a store's back. */
  public S3Client admin() {
    return admin;
  }

  @Override
  public void close() {
    admin.close();
    try {
      proxy.stop();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (Exception e) {
      throw new IllegalStateException("stopping s3proxy at " + endpoint + " failed", e);
    }
  }
}
