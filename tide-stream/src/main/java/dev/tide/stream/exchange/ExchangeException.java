package dev.tide.stream.exchange;

/**
 * A remote exchange link is broken (the peer refused it, failed, went away or broke the protocol).
 * Unchecked so that it passes through {@code Dispatcher} and fails the sending actor; the node
 * reports the failure and recovery rebuilds the job. Not retried: a link carries no replay.
 */
public final class ExchangeException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public ExchangeException(String message, Throwable cause) {
    super(message, cause);
  }
}
