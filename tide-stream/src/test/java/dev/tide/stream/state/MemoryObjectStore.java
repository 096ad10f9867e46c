package dev.tide.stream.state;

import dev.tide.storage.object.ObjectNotFoundException;
import dev.tide.storage.object.ObjectStore;
import dev.tide.storage.object.ObjectStoreException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ConcurrentSkipListMap;

/** In-memory fake of the object store for stream-layer tests. */
public final class MemoryObjectStore implements ObjectStore {
  private final ConcurrentSkipListMap<String, byte[]> objects = new ConcurrentSkipListMap<>();

  @Override
  public void put(String path, byte[] bytes) {
    objects.put(path, bytes.clone());
  }

  @Override
  public byte[] get(String path) {
    byte[] b = objects.get(path);
    if (b == null) {
      throw new ObjectNotFoundException("get", path);
    }
    return b.clone();
  }

  @Override
  public byte[] getRange(String path, long offset, int length) {
    byte[] b = get(path);
    if (offset < 0 || offset + length > b.length) {
      throw new ObjectStoreException("getRange", path, "range " + offset + "+" + length + " past the end (" + b.length + " bytes)");
    }
    return Arrays.copyOfRange(b, (int) offset, (int) offset + length);
  }

  @Override
  public List<String> list(String prefix) {
    List<String> out = new ArrayList<>();
    for (String k : objects.tailMap(prefix).keySet()) {
      if (!k.startsWith(prefix)) {
        break;
      }
      out.add(k);
    }
    return out;
  }

  @Override
  public void delete(String path) {
    objects.remove(path);
  }

  @Override
  public boolean exists(String path) {
    return objects.containsKey(path);
  }
}
