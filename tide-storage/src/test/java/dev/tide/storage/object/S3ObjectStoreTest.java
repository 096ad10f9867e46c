package dev.tide.storage.object;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.ServerSocket;
import java.net.URI;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * The object-store contract over an in-JVM S3 server (s3proxy), with a key prefix (see {@link
 * S3ObjectStoreWithoutPrefixTest} for none); plus what is S3's own: key mapping, pagination, the
 * Range header, error mapping.
 */
class S3ObjectStoreTest extends ObjectStoreContractTest {
  static final String PREFIX = "tide/cluster-1";

  static S3TestServer server;

  @BeforeAll
  static void startServer() throws Exception {
    server = S3TestServer.shared();
  }

  private String bucket;

  @Override
  protected ObjectStore newStore() {
    bucket = server.createBucket();
    return S3ObjectStore.open(server.config(bucket).withKeyPrefix(PREFIX));
  }

  @Test
  void keysCarryThePrefixAndKeysOutsideItAreInvisible() {
    S3Client admin = server.admin();
    store.put("state/1.sst", bytes("abc"));
    assertThat(admin.getObjectAsBytes(b -> b.bucket(bucket).key(PREFIX + "/state/1.sst"))
        .asUtf8String()).isEqualTo("abc");

    admin.putObject(b -> b.bucket(bucket).key("tide/cluster-2/state/1.sst"), RequestBody.empty());
    admin.putObject(b -> b.bucket(bucket).key("tide/cluster-1x/state/1.sst"), RequestBody.empty());
    admin.putObject(b -> b.bucket(bucket).key("top.sst"), RequestBody.empty());
    // a console "folder" marker and a key with a backslash: no valid object paths
    admin.putObject(b -> b.bucket(bucket).key(PREFIX + "/folder/"), RequestBody.empty());
    admin.putObject(b -> b.bucket(bucket).key(PREFIX + "/back\\slash"), RequestBody.empty());

    assertThat(store.list("")).containsExactly("state/1.sst");
    assertThat(store.list("state/")).containsExactly("state/1.sst");
    assertThat(store.exists("top.sst")).isFalse();
    assertThat(store.toString()).isEqualTo("S3ObjectStore(s3://" + bucket + "/" + PREFIX + ")");
  }

  @Test
  void listFollowsContinuationTokensAndRangesUseTheRangeHeader() {
    RequestLog log = new RequestLog();
    S3Config config = server.config(bucket).withKeyPrefix(PREFIX).withListPageSize(2);
    try (S3Client client = clientWith(config, log)) {
      S3ObjectStore paged = new S3ObjectStore(client, config);
      List<String> paths = new ArrayList<>();
      for (int i = 0; i < 9; i++) {
        paths.add("p/" + (char) ('i' - i) + ".sst");
      }
      for (String p : paths) {
        paged.put(p, bytes(p + " content"));
      }
      Collections.sort(paths);
      log.lines.clear();

      assertThat(paged.list("p/")).containsExactlyElementsOf(paths);
      assertThat(log.lines).hasSize(5).allMatch(l -> l.startsWith("ListObjectsV2Request"));

      log.lines.clear();
      assertThat(paged.getRange("p/a.sst", 2, 3)).isEqualTo(bytes("a.s"));
      assertThat(log.lines).containsExactly("GetObjectRequest range=bytes=2-4");
      paged.close(); // the client is the caller's: still usable
      assertThat(paged.exists("p/a.sst")).isTrue();
    }
  }

  @Test
  void aMissingBucketIsAFailureNotAMissingObject() {
    S3ObjectStore missing = S3ObjectStore.open(server.config("no-such-bucket")
        .withKeyPrefix(PREFIX));
    try (missing) {
      assertThatThrownBy(() -> missing.get("a/1.sst"))
          .isInstanceOf(ObjectStoreException.class)
          .isNotInstanceOf(ObjectNotFoundException.class)
          .hasMessageContaining("get of 'a/1.sst'")
          .hasMessageContaining("s3://no-such-bucket/" + PREFIX + "/a/1.sst")
          .hasMessageContaining("404 NoSuchBucket")
          .hasMessageContaining("create it first");
      assertThatThrownBy(() -> missing.getRange("a/1.sst", 0, 4))
          .isInstanceOf(ObjectStoreException.class)
          .isNotInstanceOf(ObjectNotFoundException.class)
          .hasMessageContaining("NoSuchBucket");
      assertThatThrownBy(() -> missing.put("a/1.sst", bytes("x")))
          .isInstanceOf(ObjectStoreException.class)
          .hasMessageContaining("put of 'a/1.sst'")
          .hasMessageContaining("NoSuchBucket");
      assertThatThrownBy(() -> missing.list("a/"))
          .isInstanceOf(ObjectStoreException.class)
          .hasMessageContaining("list of 'a/'")
          .hasMessageContaining("NoSuchBucket");
      // HeadObject has no body to tell the two apart
      assertThat(missing.exists("a/1.sst")).isFalse();
    }
  }

  @Test
  void aWrongSecretIsRefusedNamingTheOperationAndKey() {
    S3Config config = server.config(bucket).withKeyPrefix(PREFIX)
        .withCredentials(S3TestServer.ACCESS_KEY, "not-the-secret");
    try (S3ObjectStore wrong = S3ObjectStore.open(config)) {
      ObjectStoreException e = catchStoreException(() -> wrong.put("a/b.sst", bytes("x")));
      assertThat(e).isNotInstanceOf(ObjectNotFoundException.class)
          .hasMessageContaining("put of 'a/b.sst'")
          .hasMessageContaining("s3://" + bucket + "/" + PREFIX + "/a/b.sst")
          .hasMessageContaining("HTTP 403");
      assertThat(e.operation()).isEqualTo("put");
      assertThat(e.path()).isEqualTo("a/b.sst");
    }
    assertThat(store.exists("a/b.sst")).isFalse();
  }

  @Test
  void anUnreachableEndpointIsAFailureNamingTheOperation() throws Exception {
    int port;
    try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      port = s.getLocalPort();
    }
    S3Config config = server.config(bucket).withEndpoint(URI.create("http://127.0.0.1:" + port));
    try (S3ObjectStore down = S3ObjectStore.open(config)) {
      assertThatThrownBy(() -> down.get("a/1.sst"))
          .isInstanceOf(ObjectStoreException.class)
          .isNotInstanceOf(ObjectNotFoundException.class)
          .hasMessageContaining("get of 'a/1.sst'")
          .hasMessageContaining("s3://" + bucket + "/a/1.sst");
    }
  }

  /** Records each request's type, and its Range header when it has one. */
  static final class RequestLog implements ExecutionInterceptor {
    final List<String> lines = Collections.synchronizedList(new ArrayList<>());

    @Override
    public void beforeTransmission(Context.BeforeTransmission context,
        ExecutionAttributes attributes) {
      String type = context.request().getClass().getSimpleName();
      lines.add(context.httpRequest().firstMatchingHeader("Range")
          .map(r -> type + " range=" + r).orElse(type));
    }
  }

  /** A client like {@link S3ObjectStore#newClient}'s, with {@code log} watching its requests. */
  private static S3Client clientWith(S3Config config, RequestLog log) {
    return S3Client.builder()
        .region(Region.of(config.region()))
        .endpointOverride(config.endpoint())
        .forcePathStyle(true)
        .credentialsProvider(StaticCredentialsProvider.create(
            AwsBasicCredentials.create(config.accessKeyId(), config.secretAccessKey())))
        .httpClientBuilder(UrlConnectionHttpClient.builder())
        .overrideConfiguration(o -> o.addExecutionInterceptor(log))
        .build();
  }
}
