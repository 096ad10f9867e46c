package dev.tide.stream.operator;

import java.util.concurrent.atomic.AtomicLong;

/**
 * The heap that the operators' {@link KeyCache}s may hold together. A cache reports what it holds
 * (entries times its estimate of an entry's bytes) each time it ages, at barriers; while the total
 * is above the limit, every cache that ages drops its old generation (the keys it has not used
 * since it last aged), however small it is. So caches are bounded by memory, not by a count of
 * entries: a hot set that fits stays whole (a keyed aggregation over millions of groups reads no
 * state per row), and one that does not is trimmed to what was used recently.
 *
 * <p>One budget serves every node of a JVM ({@link #jvm()}: {@value #HEAP_PERCENT}% of the maximum
 * heap, {@code -Xmx}), as the heap is the JVM's. Thread-safety: safe for concurrent use.
 */
public final class CacheBudget {
  /** The default limit as a share of the maximum heap. */
  public static final int HEAP_PERCENT = 30;

  private static final CacheBudget JVM = new CacheBudget(Runtime.getRuntime().maxMemory() / 100 * HEAP_PERCENT);

  private final long limitBytes;
  private final AtomicLong heldBytes = new AtomicLong();

  /** @throws IllegalArgumentException if {@code limitBytes} is not positive */
  public CacheBudget(long limitBytes) {
    if (limitBytes <= 0) {
      throw new IllegalArgumentException("operator cache budget must be positive, got " + limitBytes + " bytes");
    }
    this.limitBytes = limitBytes;
  }

  /** The budget of this JVM's operators. */
  public static CacheBudget jvm() {
    return JVM;
  }

  public long limitBytes() {
    return limitBytes;
  }

  /** What the caches reported last, together. */
  public long heldBytes() {
    return heldBytes.get();
  }

  /** A cache that held {@code before} bytes now holds {@code after}. */
  void report(long before, long after) {
    if (before != after) {
      heldBytes.addAndGet(after - before);
    }
  }

  boolean exceeded() {
    return heldBytes.get() > limitBytes;
  }
}
