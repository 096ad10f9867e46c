package dev.tide.stream.actor;

/**
 * A promise on one channel: no row that follows has a value below {@code value} in column
 * {@code column} (rows equal to it may follow). Sources emit them on their event-time column, an
 * actor passes on the least of its inputs' (per merge, once every input has made one), and
 * operators map them to their output columns. Windowed operators close or forget the windows a
 * watermark has passed; a row that arrives below the watermark is late and is dropped there.
 * {@link Long#MAX_VALUE} promises that nothing more comes (the end of a bounded input).
 */
public record Watermark(int column, long value) {
  /** The same promise on another column of the output. */
  public Watermark on(int outputColumn) {
    return new Watermark(outputColumn, value);
  }
}
