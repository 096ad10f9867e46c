package dev.tide.storage.object;

import java.io.InputStream;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Iterator;
import java.util.List;
import java.util.Objects;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.AwsCredentialsProvider;
import software.amazon.awssdk.auth.credentials.DefaultCredentialsProvider;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.awscore.exception.AwsErrorDetails;
import software.amazon.awssdk.awscore.exception.AwsServiceException;
import software.amazon.awssdk.core.ResponseBytes;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.http.ContentStreamProvider;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.S3ClientBuilder;
import software.amazon.awssdk.services.s3.model.GetObjectResponse;
import software.amazon.awssdk.services.s3.model.HeadObjectResponse;
import software.amazon.awssdk.services.s3.model.ListObjectsV2Request;
import software.amazon.awssdk.services.s3.model.NoSuchKeyException;
import software.amazon.awssdk.services.s3.model.S3Object;

/**
 * An {@link ObjectStore} over an S3 bucket (AWS or an S3-compatible server): object {@code
 * state/1.sst} is key {@code keyPrefix/state/1.sst} of {@link S3Config#bucket()}.
 *
 * <p>Mapping: {@link #put} is one PutObject (atomic on S3: readers see the old or the whole new
 * object); {@link #getRange} is a GetObject with a {@code Range} header; {@link #list} follows
 * ListObjectsV2 continuation tokens and returns the paths sorted, skipping keys that are no valid
 * object path (such as folder markers ending in {@code /}); {@link #delete} is a DeleteObject, which
 * S3 answers with success for a missing key; {@link #exists} is a HeadObject.
 *
 * <p>Errors: a missing key is an {@link ObjectNotFoundException}; every other failure, including a
 * missing bucket, is an {@link ObjectStoreException} naming the operation, the object path, the
 * {@code s3://bucket/key} and the HTTP status and S3 error code. Transient failures (throttling,
 * 5xx, connection resets) are retried by the SDK's default retry strategy before they surface.
 * HeadObject answers without a body, so {@link #exists} cannot tell a missing bucket from a missing
 * key and answers false for both.
 *
 * <p>Thread-safety: safe for concurrent use; the SDK client is thread-safe.
 */
public final class S3ObjectStore implements ObjectStore, AutoCloseable {
  private final S3Client client;
  private final boolean ownsClient;
  private final S3Config config;
  private final String bucket;
  private final int keyOffset; // length of "keyPrefix/" (0 without a prefix)

  /**
   * A store over {@code client}, which the caller keeps owning (and closes); only the bucket, key
   * prefix and list page size of {@code config} are used here.
   */
  public S3ObjectStore(S3Client client, S3Config config) {
    this(client, config, false);
  }

  private S3ObjectStore(S3Client client, S3Config config, boolean ownsClient) {
    this.client = Objects.requireNonNull(client, "client");
    this.config = Objects.requireNonNull(config, "config");
    this.ownsClient = ownsClient;
    this.bucket = config.bucket();
    this.keyOffset = config.keyPrefix().isEmpty() ? 0 : config.keyPrefix().length() + 1;
  }

  /**
   * A store with its own client built by {@link #newClient}; {@link #close} closes it. Does not
   * contact the server: a wrong endpoint or a missing bucket surfaces on the first operation.
   */
  public static S3ObjectStore open(S3Config config) {
    return new S3ObjectStore(newClient(config), config, true);
  }

  /**
   * The SDK client for {@code config}: its endpoint (or AWS's for the region), region,
   * credentials (static or the default provider chain) and addressing style, over the JDK's
   * URL-connection HTTP client with the SDK's default timeouts (connect 2 s, socket 30 s), retry
   * strategy and checksums.
   */
  public static S3Client newClient(S3Config config) {
    AwsCredentialsProvider credentials = config.hasStaticCredentials()
        ? StaticCredentialsProvider.create(
            AwsBasicCredentials.create(config.accessKeyId(), config.secretAccessKey()))
        : DefaultCredentialsProvider.builder().build();
    S3ClientBuilder builder = S3Client.builder()
        .region(Region.of(config.region()))
        .credentialsProvider(credentials)
        .forcePathStyle(config.pathStyleAccess())
        .httpClientBuilder(UrlConnectionHttpClient.builder());
    if (config.endpoint() != null) {
      builder.endpointOverride(config.endpoint());
    }
    return builder.build();
  }

  /** The bucket, key prefix and list page size in use. */
  public S3Config config() {
    return config;
  }

  @Override
  public void put(String path, byte[] bytes) {
    String key = key(path);
    try {
      // the caller does not touch the array during the call, so the SDK may read it in place
      client.putObject(b -> b.bucket(bucket).key(key),
          RequestBody.fromContentProvider(ContentStreamProvider.fromByteArrayUnsafe(bytes),
              bytes.length, "application/octet-stream"));
    } catch (SdkException e) {
      throw failure("put", path, key, e);
    }
  }

  @Override
  public void put(String path, List<ByteBuffer> parts) {
    String key = key(path);
    long length = 0;
    for (ByteBuffer p : parts) {
      length += p.remaining();
    }
    try {
      // A fresh stream per call: the SDK asks again when it retries.
      client.putObject(b -> b.bucket(bucket).key(key),
          RequestBody.fromContentProvider(() -> concatenated(parts), length, "application/octet-stream"));
    } catch (SdkException e) {
      throw failure("put", path, key, e);
    }
  }

  /** The remaining bytes of {@code parts} as one stream, read through duplicates (the parts' positions stay). */
  private static InputStream concatenated(List<ByteBuffer> parts) {
    Iterator<ByteBuffer> next = parts.stream().map(ByteBuffer::duplicate).iterator();
    return new InputStream() {
      private ByteBuffer current = ByteBuffer.allocate(0);

      private boolean advance() {
        while (!current.hasRemaining()) {
          if (!next.hasNext()) {
            return false;
          }
          current = next.next();
        }
        return true;
      }

      @Override
      public int read() {
        return advance() ? current.get() & 0xff : -1;
      }

      @Override
      public int read(byte[] b, int off, int len) {
        Objects.checkFromIndexSize(off, len, b.length);
        if (len == 0) {
          return 0;
        }
        if (!advance()) {
          return -1;
        }
        int n = Math.min(len, current.remaining());
        current.get(b, off, n);
        return n;
      }
    };
  }

  @Override
  public byte[] get(String path) {
    String key = key(path);
    try {
      return client.getObjectAsBytes(b -> b.bucket(bucket).key(key)).asByteArray();
    } catch (SdkException e) {
      throw notFoundOrFailure("get", path, key, e);
    }
  }

  @Override
  public byte[] getRange(String path, long offset, int length) {
    if (offset < 0 || length < 0 || offset > Long.MAX_VALUE - length) {
      throw new IllegalArgumentException("getRange of '" + path + "' refused: offset " + offset
          + " and length " + length + " must not be negative nor overflow");
    }
    String key = key(path);
    long end = offset + length; // exclusive
    if (length == 0) {
      // an empty HTTP range cannot be expressed: check the size instead
      long size = size("getRange", path, key);
      if (offset > size) {
        throw pastTheEnd(path, offset, end, size);
      }
      return new byte[0];
    }
    ResponseBytes<GetObjectResponse> response;
    try {
      response = client.getObjectAsBytes(b -> b.bucket(bucket).key(key)
          .range("bytes=" + offset + "-" + (end - 1)));
    } catch (AwsServiceException e) {
      if (e.statusCode() == 416) { // the range starts at or past the end
        throw pastTheEnd(path, offset, end, size("getRange", path, key));
      }
      throw notFoundOrFailure("getRange", path, key, e);
    } catch (SdkException e) {
      throw failure("getRange", path, key, e);
    }
    byte[] bytes = response.asByteArray();
    String contentRange = response.response().contentRange();
    if (contentRange == null) {
      // the server ignored the Range header and sent the whole object
      if (end > bytes.length) {
        throw pastTheEnd(path, offset, end, bytes.length);
      }
      return Arrays.copyOfRange(bytes, (int) offset, (int) end);
    }
    if (bytes.length < length) { // S3 cuts a range that ends past the object
      throw pastTheEnd(path, offset, end, totalSize(contentRange, offset + bytes.length));
    }
    if (bytes.length > length) {
      throw new ObjectStoreException("getRange", path, "s3://" + bucket + "/" + key + ": asked for"
          + " range [" + offset + ", " + end + ") but got " + bytes.length + " bytes ("
          + contentRange + ")");
    }
    return bytes;
  }

  @Override
  public List<String> list(String prefix) {
    Objects.requireNonNull(prefix, "prefix");
    String keyPrefix = config.key(prefix);
    ListObjectsV2Request.Builder request = ListObjectsV2Request.builder()
        .bucket(bucket)
        .maxKeys(config.listPageSize());
    if (!keyPrefix.isEmpty()) {
      request.prefix(keyPrefix);
    }
    List<String> out = new ArrayList<>();
    try {
      for (S3Object object : client.listObjectsV2Paginator(request.build()).contents()) {
        String path = object.key().substring(keyOffset);
        if (isObjectPath(path)) {
          out.add(path);
        }
      }
    } catch (SdkException e) {
      throw failure("list", prefix, keyPrefix, e);
    }
    // S3 sorts by UTF-8 bytes; the contract is String order
    Collections.sort(out);
    return out;
  }

  @Override
  public void delete(String path) {
    String key = key(path);
    try {
      client.deleteObject(b -> b.bucket(bucket).key(key));
    } catch (NoSuchKeyException e) {
      // S3 itself answers 204 for a missing key; some compatible servers answer 404
    } catch (SdkException e) {
      throw failure("delete", path, key, e);
    }
  }

  @Override
  public boolean exists(String path) {
    String key = key(path);
    try {
      client.headObject(b -> b.bucket(bucket).key(key));
      return true;
    } catch (SdkException e) {
      if (isNoSuchKey(e)) {
        return false;
      }
      throw failure("exists", path, key, e);
    }
  }

  /** Closes the client if this store built it ({@link #open}); otherwise does nothing. */
  @Override
  public void close() {
    if (ownsClient) {
      client.close();
    }
  }

  @Override
  public String toString() {
    return "S3ObjectStore(s3://" + bucket + "/" + config.keyPrefix() + ")";
  }

  private String key(String path) {
    return config.key(ObjectPaths.check(path));
  }

  /** The size of the object, by a HeadObject. */
  private long size(String op, String path, String key) {
    HeadObjectResponse head;
    try {
      head = client.headObject(b -> b.bucket(bucket).key(key));
    } catch (SdkException e) {
      throw notFoundOrFailure(op, path, key, e);
    }
    return head.contentLength();
  }

  private static ObjectStoreException pastTheEnd(String path, long offset, long end, long size) {
    return new ObjectStoreException("getRange", path, "range [" + offset + ", " + end
        + ") extends past the object size " + size);
  }

  /** The total of a {@code Content-Range: bytes a-b/total} header, or {@code fallback}. */
  private static long totalSize(String contentRange, long fallback) {
    int slash = contentRange.lastIndexOf('/');
    if (slash >= 0) {
      try {
        return Long.parseLong(contentRange.substring(slash + 1).trim());
      } catch (NumberFormatException e) {
        // "bytes a-b/*": size unknown
      }
    }
    return fallback;
  }

  private static boolean isObjectPath(String path) {
    try {
      ObjectPaths.check(path);
      return true;
    } catch (IllegalArgumentException e) {
      return false;
    }
  }

  /** A missing key (NoSuchKey, or a bodiless 404 of a HEAD), but not a missing bucket. */
  private static boolean isNoSuchKey(SdkException e) {
    if (e instanceof NoSuchKeyException) {
      return true;
    }
    if (e instanceof AwsServiceException s && s.statusCode() == 404) {
      String code = errorCode(s);
      return code == null || code.isEmpty() || code.equals("NoSuchKey")
          || code.equals("NotFound");
    }
    return false;
  }

  private ObjectStoreException notFoundOrFailure(String op, String path, String key,
      SdkException e) {
    return isNoSuchKey(e) ? new ObjectNotFoundException(op, path) : failure(op, path, key, e);
  }

  private ObjectStoreException failure(String op, String path, String key, SdkException e) {
    StringBuilder detail = new StringBuilder("s3://").append(bucket).append('/').append(key);
    if (e instanceof AwsServiceException s) {
      String code = errorCode(s);
      detail.append(": HTTP ").append(s.statusCode());
      if (code != null && !code.isEmpty()) {
        detail.append(' ').append(code);
      }
      AwsErrorDetails details = s.awsErrorDetails();
      String message = details == null ? null : details.errorMessage();
      if (message != null && !message.isEmpty()) {
        detail.append(": ").append(message);
      }
      if ("NoSuchBucket".equals(code)) {
        detail.append(" (bucket '").append(bucket).append("' does not exist; create it first)");
      }
    } else {
      detail.append(": ").append(e.getMessage());
    }
    return new ObjectStoreException(op, path, detail.toString(), e);
  }

  private static String errorCode(AwsServiceException e) {
    AwsErrorDetails details = e.awsErrorDetails();
    return details == null ? null : details.errorCode();
  }
}
