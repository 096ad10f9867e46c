package dev.tide.storage.object;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BiPredicate;

/**
 * In-memory fake of the object store for tests. Faults are injected by a predicate over
 * (operation, path): a matching operation throws {@link ObjectStoreException} instead of running.
 * Objects can be damaged in place with {@link #flipByte}.
 */
public final class InMemoryObjectStore implements ObjectStore {
  private final ConcurrentSkipListMap<String, byte[]> objects = new ConcurrentSkipListMap<>();
  private volatile BiPredicate<String, String> failWhen = (op, path) -> false;
  private final AtomicLong rangeReads = new AtomicLong();
  private final AtomicLong puts = new AtomicLong();

  /** Makes every operation matching {@code failWhen} fail; pass null to stop failing. */
  public void failWhen(BiPredicate<String, String> failWhen) {
    this.failWhen = failWhen == null ? (op, path) -> false : failWhen;
  }

  /** Flips all bits of the byte at {@code offset} of the object at {@code path}. */
  public void flipByte(String path, long offset) {
    objects.computeIfPresent(path, (p, bytes) -> {
      byte[] copy = bytes.clone();
      copy[(int) offset] ^= (byte) 0xff;
      return copy;
    });
  }

  /** Number of ranged reads served. */
  public long rangeReads() {
    return rangeReads.get();
  }

  /** Number of puts served. */
  public long puts() {
    return puts.get();
  }

  /** Snapshot of all objects. */
  public Map<String, byte[]> snapshot() {
    return new ConcurrentSkipListMap<>(objects);
  }

  private void check(String op, String path) {
    ObjectPaths.check(path);
    if (failWhen.test(op, path)) {
      throw new ObjectStoreException(op, path, "injected fault");
    }
  }

  @Override
  public void put(String path, byte[] bytes) {
    check("put", path);
    puts.incrementAndGet();
    objects.put(path, bytes.clone());
  }

  @Override
  public byte[] get(String path) {
    check("get", path);
    byte[] b = objects.get(path);
    if (b == null) {
      throw new ObjectNotFoundException("get", path);
    }
    return b.clone();
  }

  @Override
  public byte[] getRange(String path, long offset, int length) {
    if (offset < 0 || length < 0) {
      throw new IllegalArgumentException("getRange of '" + path + "' refused: offset " + offset
          + " and length " + length + " must not be negative");
    }
    check("getRange", path);
    rangeReads.incrementAndGet();
    byte[] b = objects.get(path);
    if (b == null) {
      throw new ObjectNotFoundException("getRange", path);
    }
    if (offset + length > b.length) {
      throw new ObjectStoreException("getRange", path, "range [" + offset + ", "
          + (offset + length) + ") extends past the object size " + b.length);
    }
    return Arrays.copyOfRange(b, (int) offset, (int) offset + length);
  }

  @Override
  public List<String> list(String prefix) {
    if (failWhen.test("list", prefix)) {
      throw new ObjectStoreException("list", prefix, "injected fault");
    }
    List<String> out = new ArrayList<>();
    for (String key : objects.tailMap(prefix, true).keySet()) {
      if (!key.startsWith(prefix)) {
        break;
      }
      out.add(key);
    }
    return out;
  }

  @Override
  public void delete(String path) {
    check("delete", path);
    objects.remove(path);
  }

  @Override
  public boolean exists(String path) {
    check("exists", path);
    return objects.containsKey(path);
  }
}
