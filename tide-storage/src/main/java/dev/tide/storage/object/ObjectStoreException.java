package dev.tide.storage.object;

/** An object-store operation failed; the message names the operation and the path. */
public class ObjectStoreException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private final String operation;
  private final String path;

  public ObjectStoreException(String operation, String path, String detail, Throwable cause) {
    super("object store " + operation + " of '" + path + "' failed: " + detail, cause);
    this.operation = operation;
    this.path = path;
  }

  public ObjectStoreException(String operation, String path, String detail) {
    this(operation, path, detail, null);
  }

  /** The failed operation: put, get, getRange, list, delete or exists. */
  public String operation() {
    return operation;
  }

  /** The path (or list prefix) the operation was about. */
  public String path() {
    return path;
  }
}
