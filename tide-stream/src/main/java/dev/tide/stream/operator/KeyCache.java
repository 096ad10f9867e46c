package dev.tide.stream.operator;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;

/**
 * An operator's bounded in-memory cache of state by key, in two generations: entries are put in
 * the young one, an entry found in the old one moves back to the young one, and {@link #age} (at a
 * barrier) drops the old generation and makes the young one old once the cache holds the bound, or
 * whenever the {@link CacheBudget} the caches share is exceeded. So the keys used since the last
 * ageing stay, the cache holds at most about the bound, and a key set within the bound stays whole
 * however its keys take turns (ageing at half the bound instead would drop, each time, keys of a
 * uniformly used set that fits, only to read them again): unlike clearing everything when full,
 * the hot keys survive an eviction. The bound is what the whole budget holds of entries
 * of {@code entryBytes}, the owner's estimate of one entry's heap (key, value and map slot).
 *
 * <p>Keys are either fixed-width longs ({@link LongKeyMap}, no boxing per row) or lists of boxed
 * values; one cache uses one kind. Eviction is always safe for the callers (state is in the
 * store); an entry removed or evicted is read again from there.
 *
 * <p>Thread-safety: confined to the actor thread.
 */
final class KeyCache<V> {
  /** The fewest entries a cache keeps whatever its budget, so a tiny budget still caches a chunk's keys. */
  static final int MIN_BOUND = 10_000;

  private final boolean longKeys;
  private final int bound;
  private final int entryBytes;
  private final CacheBudget budget;
  private long reportedBytes;
  private LongKeyMap<V> youngLongs;
  private LongKeyMap<V> oldLongs;
  private Map<List<Object>, V> young = new HashMap<>();
  private Map<List<Object>, V> old = new HashMap<>();

  /** A cache of boxed keys only. */
  KeyCache(int entryBytes, CacheBudget budget) {
    this(false, entryBytes, budget);
  }

  private KeyCache(boolean longKeys, int entryBytes, CacheBudget budget) {
    this.longKeys = longKeys;
    this.entryBytes = entryBytes;
    this.budget = budget;
    this.bound = (int) Math.max(MIN_BOUND, Math.min(Integer.MAX_VALUE / 2, budget.limitBytes() / entryBytes));
  }

  /** A cache that also takes keys of {@code width} longs (0 for the single key of a global group). */
  KeyCache(int width, int entryBytes, CacheBudget budget) {
    this(true, entryBytes, budget);
    youngLongs = new LongKeyMap<>(width);
    oldLongs = new LongKeyMap<>(width);
  }

  V get(long[] key) {
    V v = youngLongs.get(key);
    if (v == null) {
      v = oldLongs.get(key);
      if (v != null) {
        oldLongs.remove(key);
        youngLongs.put(key, v);
      }
    }
    return v;
  }

  V get(List<Object> key) {
    V v = young.get(key);
    if (v == null) {
      v = old.remove(key);
      if (v != null) {
        young.put(key, v);
      }
    }
    return v;
  }

  void put(long[] key, V value) {
    youngLongs.put(key, value);
    oldLongs.remove(key);
  }

  void put(List<Object> key, V value) {
    young.put(key, value);
    old.remove(key);
  }

  void remove(long[] key) {
    youngLongs.remove(key);
    oldLongs.remove(key);
  }

  void remove(List<Object> key) {
    young.remove(key);
    old.remove(key);
  }

  int size() {
    return young.size() + old.size() + (longKeys ? youngLongs.size() + oldLongs.size() : 0);
  }

  /** Reports the cache's size to the budget and ages it if it holds the bound or the budget is exceeded. */
  void age() {
    report();
    if (size() < bound && !budget.exceeded()) {
      return;
    }
    Map<List<Object>, V> dropped = old;
    dropped.clear();
    old = young;
    young = dropped;
    if (longKeys) {
      LongKeyMap<V> droppedLongs = oldLongs;
      droppedLongs.clear();
      oldLongs = youngLongs;
      youngLongs = droppedLongs;
    }
    report();
  }

  /** Empties the cache (and gives its share of the budget back: call it when the owner closes). */
  void clear() {
    young.clear();
    old.clear();
    if (longKeys) {
      youngLongs.clear();
      oldLongs.clear();
    }
    report();
  }

  private void report() {
    long now = (long) size() * entryBytes;
    budget.report(reportedBytes, now);
    reportedBytes = now;
  }

  /**
   * Keeps only the entries whose key the predicate of its kind accepts: boxed keys {@code keep},
   * long keys {@code keepLongs} (given one array refilled per key, not to be kept).
   */
  void retainKeys(Predicate<Object[]> keep, Predicate<long[]> keepLongs) {
    for (Map<List<Object>, V> m : List.of(young, old)) {
      m.keySet().removeIf(k -> !keep.test(k.toArray()));
    }
    if (longKeys) {
      youngLongs.retainKeys(keepLongs);
      oldLongs.retainKeys(keepLongs);
    }
  }
}
