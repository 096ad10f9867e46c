package dev.tide.storage;

import java.util.Iterator;

/**
 * An iterator holding resources (a pinned store version) until closed. Closing twice is harmless.
 */
public interface CloseableIterator<T> extends Iterator<T>, AutoCloseable {
  @Override
  void close();
}
