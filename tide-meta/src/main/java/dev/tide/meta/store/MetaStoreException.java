package dev.tide.meta.store;

/**
 * The meta store failed or cannot be used: it is unreachable, corrupt, of an unsupported schema
 * version, or a statement failed. The message names the store and the operation. Refusals of bad
 * requests (unknown job, stale version) are {@link IllegalArgumentException}s and
 * {@link IllegalStateException}s instead; either way the failed operation changed nothing.
 */
public final class MetaStoreException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public MetaStoreException(String message) {
    super(message);
  }

  public MetaStoreException(String message, Throwable cause) {
    super(message, cause);
  }
}
