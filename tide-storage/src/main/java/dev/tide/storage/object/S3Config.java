package dev.tide.storage.object;

import dev.tide.common.config.Config;
import dev.tide.common.config.ConfigException;
import dev.tide.common.config.ConfigOption;
import java.net.URI;
import java.net.URISyntaxException;
import java.util.List;
import java.util.regex.Pattern;

/**
 * Where and how an {@link S3ObjectStore} reaches its bucket; validated on construction, so a bad
 * value is refused when the config is built, with an error naming the option ({@code s3.bucket},
 * ...), the value and the expected form. The secret access key is never printed.
 *
 * @param endpoint the S3 endpoint, like {@code http://127.0.0.1:9000} for an S3-compatible server;
 *     null for AWS's endpoint of {@code region}
 * @param region the signing region (default {@code us-east-1}, which S3-compatible servers accept)
 * @param bucket the bucket holding the objects; it must exist
 * @param keyPrefix prefix of every key, without a trailing {@code /}: object {@code state/1.sst} is
 *     key {@code keyPrefix/state/1.sst}; empty for none
 * @param accessKeyId static access key id; null (with a null secret) uses the SDK's default
 *     credential provider chain (environment, system properties, profile, container, instance)
 * @param secretAccessKey static secret access key; set together with {@code accessKeyId}
 * @param pathStyleAccess address objects as {@code endpoint/bucket/key} instead of {@code
 *     bucket.endpoint/key}; most S3-compatible servers need it
 * @param listPageSize keys asked for per list request, 1..1000 (default 1000, S3's maximum)
 */
public record S3Config(
    URI endpoint,
    String region,
    String bucket,
    String keyPrefix,
    String accessKeyId,
    String secretAccessKey,
    boolean pathStyleAccess,
    int listPageSize) {

  private static final Pattern REGION_FORM = Pattern.compile("[a-z0-9][a-z0-9-]*");
  private static final Pattern BUCKET_FORM = Pattern.compile("[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]");

  public static final ConfigOption<String> ENDPOINT = ConfigOption.stringOption("s3.endpoint", "",
      "S3 endpoint URL, like http://127.0.0.1:9000 for an S3-compatible server; empty for AWS's"
          + " endpoint of the region.")
      .withRule(S3Config::isEndpoint, "empty or an http:// or https:// URL with a host and no"
          + " query, like http://127.0.0.1:9000");
  public static final ConfigOption<String> REGION = ConfigOption.stringOption("s3.region",
      "us-east-1", "Signing region of the S3 endpoint.")
      .withRule(r -> REGION_FORM.matcher(r).matches(),
          "a region name of a-z, 0-9 and '-', like us-east-1");
  public static final ConfigOption<String> BUCKET = ConfigOption.stringOption("s3.bucket", null,
      "Bucket holding the objects (SSTs); it must exist.")
      .withRule(S3Config::isBucket, "a bucket name of 3 to 63 characters a-z, 0-9, '.' and '-'"
          + " that starts and ends with a letter or digit, like tide-state");
  public static final ConfigOption<String> KEY_PREFIX = ConfigOption.stringOption("s3.key-prefix",
      "", "Prefix of every object key, so several clusters can share a bucket; empty for none.")
      .withRule(S3Config::isKeyPrefix, "empty or a '/'-separated path without a leading or"
          + " trailing '/' and without empty, '.' or '..' segments, like tide/cluster-1");
  public static final ConfigOption<String> ACCESS_KEY_ID = ConfigOption.stringOption(
      "s3.access-key-id", "", "Static access key id; empty uses the SDK's default credential"
          + " provider chain (environment, system properties, profile, container, instance).");
  public static final ConfigOption<String> SECRET_ACCESS_KEY = ConfigOption.stringOption(
      "s3.secret-access-key", "", "Static secret access key, set together with"
          + " s3.access-key-id.");
  public static final ConfigOption<Boolean> PATH_STYLE_ACCESS = ConfigOption.boolOption(
      "s3.path-style-access", false, "Address objects as endpoint/bucket/key instead of"
          + " bucket.endpoint/key; most S3-compatible servers need it.");
  public static final ConfigOption<Integer> LIST_PAGE_SIZE = ConfigOption.intOption(
      "s3.list-page-size", 1000, "Keys asked for per list request.")
      .withRule(n -> n >= 1 && n <= 1000, "between 1 and 1000");

  /** The options of an S3 object store, in documentation order. */
  public static final List<ConfigOption<?>> ALL = List.of(ENDPOINT, REGION, BUCKET, KEY_PREFIX,
      ACCESS_KEY_ID, SECRET_ACCESS_KEY, PATH_STYLE_ACCESS, LIST_PAGE_SIZE);

  /**
   * Validates every field; an empty {@code keyPrefix} may be given as null and empty credentials
   * as null.
   *
   * @throws ConfigException naming the option, the value and the rule
   */
  public S3Config {
    if (endpoint != null && !isEndpoint(endpoint)) {
      throw new ConfigException(ENDPOINT.key(), endpoint.toString(), ENDPOINT.ruleText());
    }
    if (region == null) {
      throw new ConfigException(REGION.key(), "is required: the signing region, like us-east-1");
    }
    REGION.validate(region);
    if (bucket == null) {
      throw new ConfigException(BUCKET.key(), "is required: the bucket holding the objects, like"
          + " tide-state");
    }
    BUCKET.validate(bucket);
    keyPrefix = keyPrefix == null ? "" : keyPrefix;
    KEY_PREFIX.validate(keyPrefix);
    accessKeyId = accessKeyId == null || accessKeyId.isEmpty() ? null : accessKeyId;
    secretAccessKey =
        secretAccessKey == null || secretAccessKey.isEmpty() ? null : secretAccessKey;
    if ((accessKeyId == null) != (secretAccessKey == null)) {
      // never echo the secret
      throw new ConfigException(accessKeyId == null ? ACCESS_KEY_ID.key()
          : SECRET_ACCESS_KEY.key(), "is missing: set " + ACCESS_KEY_ID.key() + " and "
          + SECRET_ACCESS_KEY.key() + " together for static credentials, or neither for the"
          + " default credential provider chain");
    }
    LIST_PAGE_SIZE.validate(listPageSize);
  }

  /**
   * The config of {@code bucket} in {@code region} at AWS's endpoint, with no key prefix, the
   * default credential provider chain, virtual-hosted addressing and full list pages.
   */
  public static S3Config of(String region, String bucket) {
    return new S3Config(null, region, bucket, "", null, null, PATH_STYLE_ACCESS.defaultValue(),
        LIST_PAGE_SIZE.defaultValue());
  }

  /**
   * The config given by the {@link #ALL} options of {@code config}; {@code s3.bucket} is required.
   *
   * @throws ConfigException naming the first bad option
   */
  public static S3Config from(Config config) {
    String endpoint = config.get(ENDPOINT);
    return new S3Config(endpoint.isEmpty() ? null : URI.create(endpoint), config.get(REGION),
        config.get(BUCKET), config.get(KEY_PREFIX), config.get(ACCESS_KEY_ID),
        config.get(SECRET_ACCESS_KEY), config.get(PATH_STYLE_ACCESS), config.get(LIST_PAGE_SIZE));
  }

  /** This config with {@code endpoint} (null: AWS's endpoint of the region). */
  public S3Config withEndpoint(URI endpoint) {
    return new S3Config(endpoint, region, bucket, keyPrefix, accessKeyId, secretAccessKey,
        pathStyleAccess, listPageSize);
  }

  /** This config with {@code keyPrefix} (empty: none). */
  public S3Config withKeyPrefix(String keyPrefix) {
    return new S3Config(endpoint, region, bucket, keyPrefix, accessKeyId, secretAccessKey,
        pathStyleAccess, listPageSize);
  }

  /** This config with static credentials (both null: the default provider chain). */
  public S3Config withCredentials(String accessKeyId, String secretAccessKey) {
    return new S3Config(endpoint, region, bucket, keyPrefix, accessKeyId, secretAccessKey,
        pathStyleAccess, listPageSize);
  }

  /** This config with path-style addressing on or off. */
  public S3Config withPathStyleAccess(boolean pathStyleAccess) {
    return new S3Config(endpoint, region, bucket, keyPrefix, accessKeyId, secretAccessKey,
        pathStyleAccess, listPageSize);
  }

  /** This config with {@code listPageSize} keys per list request. */
  public S3Config withListPageSize(int listPageSize) {
    return new S3Config(endpoint, region, bucket, keyPrefix, accessKeyId, secretAccessKey,
        pathStyleAccess, listPageSize);
  }

  /** Whether static credentials are set (otherwise the default provider chain is used). */
  public boolean hasStaticCredentials() {
    return accessKeyId != null;
  }

  /** The key of object {@code path}: {@code keyPrefix/path}, or {@code path} without a prefix. */
  String key(String path) {
    return keyPrefix.isEmpty() ? path : keyPrefix + "/" + path;
  }

  @Override
  public String toString() {
    return "S3Config[endpoint=" + (endpoint == null ? "(AWS)" : endpoint) + ", region=" + region
        + ", bucket=" + bucket + ", keyPrefix=" + keyPrefix + ", credentials="
        + (accessKeyId == null ? "(default chain)" : accessKeyId + "/****")
        + ", pathStyleAccess=" + pathStyleAccess + ", listPageSize=" + listPageSize + "]";
  }

  private static boolean isEndpoint(String text) {
    if (text.isEmpty()) {
      return true;
    }
    try {
      return isEndpoint(new URI(text));
    } catch (URISyntaxException e) {
      return false;
    }
  }

  private static boolean isEndpoint(URI uri) {
    String scheme = uri.getScheme();
    return ("http".equalsIgnoreCase(scheme) || "https".equalsIgnoreCase(scheme))
        && uri.getHost() != null && uri.getRawQuery() == null && uri.getRawFragment() == null
        && uri.getRawUserInfo() == null;
  }

  private static boolean isBucket(String name) {
    return BUCKET_FORM.matcher(name).matches() && !name.contains("..");
  }

  private static boolean isKeyPrefix(String prefix) {
    if (prefix.isEmpty()) {
      return true;
    }
    try {
      ObjectPaths.check(prefix);
      return true;
    } catch (IllegalArgumentException e) {
      return false;
    }
  }
}
