package dev.tide.storage.object;

/** Validation of object paths, shared by implementations. */
public final class ObjectPaths {
  private ObjectPaths() {}

  /**
   * Checks that {@code path} is a relative {@code /}-separated path without empty, {@code "."} or
   * {@code ".."} segments and without backslashes.
   *
   * @return {@code path}
   * @throws IllegalArgumentException naming the path and the rule otherwise
   */
  public static String check(String path) {
    if (path == null || path.isEmpty()) {
      throw new IllegalArgumentException("object path must not be empty");
    }
    if (path.indexOf('\\') >= 0 || path.indexOf('\0') >= 0) {
      throw new IllegalArgumentException(
          "object path '" + path + "' contains a backslash or NUL; use '/' as the separator");
    }
    for (String segment : path.split("/", -1)) {
      if (segment.isEmpty() || segment.equals(".") || segment.equals("..")) {
        throw new IllegalArgumentException(
            "object path '" + path + "' has an empty, '.' or '..' segment; paths are relative,"
                + " like 'state/12.sst'");
      }
    }
    return path;
  }
}
