package dev.tide.storage.sst;

/**
 * An SST object failed verification (checksum, magic, version or structure). No data of the
 * damaged part was returned.
 */
public class CorruptSstException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private final String path;
  private final String part;

  /**
   * @param path object path of the SST
   * @param sstId id of the SST
   * @param part the damaged part, such as {@code "footer"} or {@code "data block 3 at offset 8192"}
   * @param detail what failed
   */
  public CorruptSstException(String path, long sstId, String part, String detail) {
    super("corrupt SST object '" + path + "' (sst " + sstId + "), " + part + ": " + detail
        + "; the object was damaged or overwritten after upload: restore it, or recover from a"
        + " version that does not reference it");
    this.path = path;
    this.part = part;
  }

  /** Object path of the damaged SST. */
  public String path() {
    return path;
  }

  /** The damaged part of the file. */
  public String part() {
    return part;
  }
}
