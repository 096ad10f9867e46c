package dev.tide.storage.object;

/** The object an operation needs does not exist. */
public class ObjectNotFoundException extends ObjectStoreException {
  private static final long serialVersionUID = 1L;

  public ObjectNotFoundException(String operation, String path) {
    super(operation, path, "no such object");
  }
}
