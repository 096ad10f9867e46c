package dev.tide.optimizer.provider;

/** A resource provider could not do what was asked; the message names the resource and the reason. */
public final class ProviderException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public ProviderException(String message) {
    super(message);
  }

  public ProviderException(String message, Throwable cause) {
    super(message, cause);
  }
}
