package dev.tide.meta.store;

/** The id sequences meta allocates durably; each starts at 1 and never hands out an id twice. */
public enum IdKind {
  JOB("job", Integer.MAX_VALUE),
  ACTOR("actor", Long.MAX_VALUE),
  WORKER("worker", Integer.MAX_VALUE),
  SST("sst", Long.MAX_VALUE);

  private final String key;
  private final long maxId;

  IdKind(String key, long maxId) {
    this.key = key;
    this.maxId = maxId;
  }

  /** The row name of this sequence in the {@code counters} table. */
  String key() {
    return key;
  }

  /** The largest id of this kind (job and worker ids are Java {@code int}s). */
  public long maxId() {
    return maxId;
  }
}
