package dev.tide.storage.object;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The object-store contract over an in-JVM S3 server, keys without a prefix. */
class S3ObjectStoreWithoutPrefixTest extends ObjectStoreContractTest {
  static S3TestServer server;

  @BeforeAll
  static void startServer() throws Exception {
    server = S3TestServer.shared();
  }

  @Override
  protected ObjectStore newStore() {
    return S3ObjectStore.open(server.config(server.createBucket()));
  }

  @Test
  void theObjectPathIsTheKey() {
    store.put("state/1.sst", bytes("abc"));
    String bucket = ((S3ObjectStore) store).config().bucket();
    assertThat(server.admin().getObjectAsBytes(b -> b.bucket(bucket).key("state/1.sst"))
        .asUtf8String()).isEqualTo("abc");
    assertThat(store.toString()).isEqualTo("S3ObjectStore(s3://" + bucket + "/)");
  }
}
