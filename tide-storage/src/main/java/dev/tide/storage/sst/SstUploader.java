package dev.tide.storage.sst;

import dev.tide.common.store.StoreKeys;
import dev.tide.proto.store.SstInfo;
import dev.tide.storage.merge.EntryCursor;
import dev.tide.storage.object.ObjectStore;
import java.util.ArrayList;
import java.util.List;
import java.util.function.LongSupplier;

/**
 * Writes a sorted entry stream into SSTs of about a target size and uploads each one to {@code
 * objectPrefix + "/" + id + ".sst"} as soon as it is complete.
 *
 * <p>Every SST holds the keys of one table (keys of the same 4-byte table id prefix, or keys too
 * short to have one): a file is cut at each table boundary, so a per-table compaction can remove
 * whole files and its outputs never overlap another table's files.
 *
 * <p>If an upload fails, SSTs uploaded before stay in the object store unreferenced (garbage for
 * the collector); the caller retries the whole stream.
 *
 * <p>Thread-safety: confined to one thread.
 */
public final class SstUploader {
  private final ObjectStore objects;
  private final String objectPrefix;
  private final LongSupplier ids;
  private final long targetFileBytes;
  private final int blockTargetBytes;
  private final int bloomBitsPerKey;
  private final List<SstInfo> uploaded = new ArrayList<>();
  private SstWriter writer;
  /** Table id of the keys in {@link #writer}; -1 for keys without one. */
  private long writerTable;

  /**
   * @param targetFileBytes size at which an output file is cut, at least 1
   */
  public SstUploader(ObjectStore objects, String objectPrefix, LongSupplier ids,
      long targetFileBytes, int blockTargetBytes, int bloomBitsPerKey) {
    if (targetFileBytes < 1) {
      throw new IllegalArgumentException(
          "SST target file size " + targetFileBytes + " bytes must be at least 1");
    }
    this.objects = objects;
    this.objectPrefix = objectPrefix;
    this.ids = ids;
    this.targetFileBytes = targetFileBytes;
    this.blockTargetBytes = blockTargetBytes;
    this.bloomBitsPerKey = bloomBitsPerKey;
  }

  /** The object path of SST {@code id} under {@code objectPrefix}. */
  public static String objectPath(String objectPrefix, long id) {
    return objectPrefix + "/" + id + ".sst";
  }

  /** Adds the current entry of {@code c}; keys must increase across calls. */
  public void add(EntryCursor c) {
    long table = tableOf(c.keyArray(), c.keyOffset(), c.keyLength());
    if (writer != null && (writer.estimatedFileBytes() >= targetFileBytes || table != writerTable)) {
      flush();
    }
    if (writer == null) {
      writer = new SstWriter(blockTargetBytes, bloomBitsPerKey);
      writerTable = table;
    }
    writer.add(c.keyArray(), c.keyOffset(), c.keyLength(), c.epoch(), c.tombstone(),
        c.valueArray(), c.valueOffset(), c.valueLength());
  }

  private static long tableOf(byte[] key, int offset, int length) {
    if (length < StoreKeys.TABLE_ID_BYTES) {
      return -1;
    }
    return ((key[offset] & 0xffL) << 24) | ((key[offset + 1] & 0xffL) << 16)
        | ((key[offset + 2] & 0xffL) << 8) | (key[offset + 3] & 0xffL);
  }

  private void flush() {
    long id = ids.getAsLong();
    SstWriter.Built built = writer.finish(id, objectPath(objectPrefix, id));
    writer = null;
    objects.put(built.info().getObjectPath(), built.parts());
    uploaded.add(built.info());
  }

  /** Uploads the last SST and returns all uploaded SSTs in key order (empty if no entry). */
  public List<SstInfo> finish() {
    if (writer != null) {
      flush();
    }
    return List.copyOf(uploaded);
  }
}
