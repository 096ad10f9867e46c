package dev.tide.storage;

import dev.tide.common.store.StoreKeys;
import java.util.Arrays;

/**
 * A key and its value as returned by scans. The arrays are fresh copies owned by the caller.
 * Equality compares contents.
 */
public record KeyValue(byte[] key, byte[] value) {
  @Override
  public boolean equals(Object o) {
    return o instanceof KeyValue kv && Arrays.equals(key, kv.key) && Arrays.equals(value, kv.value);
  }

  @Override
  public int hashCode() {
    return 31 * Arrays.hashCode(key) + Arrays.hashCode(value);
  }

  @Override
  public String toString() {
    return StoreKeys.toHex(key) + "=" + StoreKeys.toHex(value);
  }
}
