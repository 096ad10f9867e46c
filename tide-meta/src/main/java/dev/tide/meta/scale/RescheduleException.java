package dev.tide.meta.scale;

/**
 * A reschedule or scale request refused before anything changed: a malformed plan, an unknown
 * fragment or worker, a parallelism out of bounds, a singleton asked to scale, or a non-root
 * ensemble member targeted. The message names the request, the bad value and the expected form.
 */
public final class RescheduleException extends IllegalArgumentException {
  public RescheduleException(String message) {
    super(message);
  }
}
