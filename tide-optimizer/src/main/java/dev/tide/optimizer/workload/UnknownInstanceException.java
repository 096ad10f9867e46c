package dev.tide.optimizer.workload;

/** A call names an optimizer instance that is not registered (it expired, unregistered, or meta restarted): register again. */
public final class UnknownInstanceException extends RuntimeException {
  public UnknownInstanceException(String instanceId) {
    super("optimizer instance '" + instanceId + "' is not registered (it expired or meta restarted); register again");
  }
}
