package dev.tide.storage;

import dev.tide.storage.merge.EntryCursor;
import java.util.NoSuchElementException;

/**
 * The iterator of a store scan: the merged cursor without tombstones, each entry copied out. Runs
 * {@code release} (unpinning the version) on close or when exhausted.
 */
final class StoreIterator implements CloseableIterator<KeyValue> {
  private final EntryCursor cursor;
  private final Runnable release;
  private boolean closed;

  StoreIterator(EntryCursor cursor, Runnable release) {
    this.cursor = cursor;
    this.release = release;
  }

  @Override
  public boolean hasNext() {
    if (closed) {
      return false;
    }
    while (cursor.valid() && cursor.tombstone()) {
      cursor.next();
    }
    if (!cursor.valid()) {
      close();
      return false;
    }
    return true;
  }

  @Override
  public KeyValue next() {
    if (!hasNext()) {
      throw new NoSuchElementException("scan exhausted or closed");
    }
    KeyValue kv = new KeyValue(cursor.copyKey(), cursor.copyValue());
    cursor.next();
    return kv;
  }

  @Override
  public void close() {
    if (!closed) {
      closed = true;
      release.run();
    }
  }
}
