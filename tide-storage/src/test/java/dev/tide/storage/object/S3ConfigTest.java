package dev.tide.storage.object;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tide.common.config.Config;
import dev.tide.common.config.ConfigException;
import java.net.URI;
import java.util.Map;
import org.junit.jupiter.api.Test;

class S3ConfigTest {
  private final S3Config base = S3Config.of("eu-west-1", "tide-state");

  @Test
  void defaults() {
    assertThat(base.endpoint()).isNull();
    assertThat(base.keyPrefix()).isEmpty();
    assertThat(base.hasStaticCredentials()).isFalse();
    assertThat(base.pathStyleAccess()).isFalse();
    assertThat(base.listPageSize()).isEqualTo(1000);
    assertThat(base.key("state/1.sst")).isEqualTo("state/1.sst");
    assertThat(base.withKeyPrefix("a/b").key("state/1.sst")).isEqualTo("a/b/state/1.sst");
  }

  @Test
  void parsedFromDeclaredOptions() {
    S3Config c = S3Config.from(Config.parse(Map.of(
        "s3.endpoint", "http://127.0.0.1:9000",
        "s3.bucket", "tide-state",
        "s3.key-prefix", "tide/cluster-1",
        "s3.access-key-id", "AK",
        "s3.secret-access-key", "SK",
        "s3.path-style-access", "true",
        "s3.list-page-size", "50"), S3Config.ALL));
    assertThat(c).isEqualTo(new S3Config(URI.create("http://127.0.0.1:9000"), "us-east-1",
        "tide-state", "tide/cluster-1", "AK", "SK", true, 50));
    S3Config minimal = S3Config.from(Config.parse(Map.of("s3.bucket", "b12"), S3Config.ALL));
    assertThat(minimal).isEqualTo(S3Config.of("us-east-1", "b12"));
  }

  @Test
  void badValuesNameTheOption() {
    assertRefused(() -> base.withEndpoint(URI.create("ftp://host")), "s3.endpoint", "ftp://host");
    assertRefused(() -> base.withEndpoint(URI.create("http:/no-host")), "s3.endpoint", "no-host");
    assertRefused(() -> base.withEndpoint(URI.create("http://h:1/?x=1")), "s3.endpoint", "x=1");
    assertRefused(() -> S3Config.of("EU West", "tide-state"), "s3.region", "EU West");
    assertRefused(() -> S3Config.of(null, "tide-state"), "s3.region", "required");
    assertRefused(() -> S3Config.of("us-east-1", null), "s3.bucket", "required");
    for (String bad : new String[] {"ab", "Tide", "tide_state", "-tide", "tide-", "a..b",
        "x".repeat(64)}) {
      assertRefused(() -> S3Config.of("us-east-1", bad), "s3.bucket", bad);
    }
    for (String bad : new String[] {"/a", "a/", "a//b", "../a", "a\\b"}) {
      assertRefused(() -> base.withKeyPrefix(bad), "s3.key-prefix", bad);
    }
    assertRefused(() -> base.withListPageSize(0), "s3.list-page-size", "between 1 and 1000");
    assertRefused(() -> base.withListPageSize(1001), "s3.list-page-size", "1001");
    assertRefused(() -> Config.parse(Map.of("s3.list-page-size", "many"), S3Config.ALL),
        "s3.list-page-size", "many");
    assertRefused(() -> Config.parse(Map.of("s3.endpoint", "not a url"), S3Config.ALL),
        "s3.endpoint", "not a url");
    assertRefused(() -> S3Config.from(Config.parse(Map.of(), S3Config.ALL)), "s3.bucket",
        "required");
  }

  @Test
  void credentialsGoTogetherAndTheSecretIsNeverShown() {
    assertThat(base.withCredentials("", "").hasStaticCredentials()).isFalse();
    assertThat(base.withCredentials(null, null).hasStaticCredentials()).isFalse();
    assertThatThrownBy(() -> base.withCredentials("AK", null))
        .isInstanceOf(ConfigException.class).hasMessageContaining("s3.secret-access-key");
    assertThatThrownBy(() -> base.withCredentials(null, "hunter2"))
        .isInstanceOf(ConfigException.class).hasMessageContaining("s3.access-key-id")
        .hasMessageNotContaining("hunter2");
    S3Config c = base.withCredentials("AK", "hunter2");
    assertThat(c.hasStaticCredentials()).isTrue();
    assertThat(c.toString()).contains("AK").doesNotContain("hunter2");
  }

  private static void assertRefused(Runnable r, String key, String shown) {
    assertThatThrownBy(r::run).isInstanceOf(ConfigException.class)
        .hasMessageContaining("'" + key + "'").hasMessageContaining(shown);
  }
}
