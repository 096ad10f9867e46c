package dev.tide.cluster;

import dev.tide.storage.object.ObjectStore;
import dev.tide.storage.object.ObjectStoreException;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/** Wraps an object store; the next N puts (or ranged reads) fail, as an unreachable bucket would. */
final class FaultyObjectStore implements ObjectStore {
  private final ObjectStore inner;
  private final AtomicInteger failingPuts = new AtomicInteger();
  private final AtomicInteger failingReads = new AtomicInteger();
  private final Object holdLock = new Object();
  private boolean holding;

  FaultyObjectStore(ObjectStore inner) {
    this.inner = inner;
  }

  void failNextPuts(int n) {
    failingPuts.set(n);
  }

  /** The next n ranged reads fail: an actor reading state (an SST block) fails. */
  void failNextReads(int n) {
    failingReads.set(n);
  }

  /** Puts block until {@link #releasePuts}: uploads stall, so no epoch commits meanwhile. */
  void holdPuts() {
    synchronized (holdLock) {
      holding = true;
    }
  }

  void releasePuts() {
    synchronized (holdLock) {
      holding = false;
      holdLock.notifyAll();
    }
  }

  @Override
  public void put(String path, byte[] bytes) {
    synchronized (holdLock) {
      while (holding) {
        try {
          holdLock.wait();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new ObjectStoreException("put", path, "interrupted while held");
        }
      }
    }
    if (failingPuts.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
      throw new ObjectStoreException("put", path, "injected fault");
    }
    inner.put(path, bytes);
  }

  @Override
  public byte[] get(String path) {
    return inner.get(path);
  }

  @Override
  public byte[] getRange(String path, long offset, int length) {
    if (failingReads.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
      throw new ObjectStoreException("getRange", path, "injected fault");
    }
    return inner.getRange(path, offset, length);
  }

  @Override
  public List<String> list(String prefix) {
    return inner.list(prefix);
  }

  @Override
  public void delete(String path) {
    inner.delete(path);
  }

  @Override
  public boolean exists(String path) {
    return inner.exists(path);
  }
}
