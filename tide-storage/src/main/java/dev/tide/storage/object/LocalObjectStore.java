package dev.tide.storage.object;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Deque;
import java.util.List;

/**
 * An {@link ObjectStore} over a local directory: object {@code a/b.sst} is file {@code
 * root/a/b.sst}.
 *
 * <p>{@link #put} writes a temporary file under {@code root/.tmp/} and renames it into place
 * atomically, so readers see either the old object or the whole new one. The {@code .tmp} folder
 * is not part of the namespace: paths whose first segment is {@code .tmp} are refused.
 *
 * <p>Thread-safety: safe for concurrent use, also by several processes sharing the directory.
 */
public final class LocalObjectStore implements ObjectStore {
  private static final String TMP_DIR = ".tmp";

  private final Path root;
  private final Path tmp;

  /** Uses (and creates if needed) the directory {@code root}. */
  public LocalObjectStore(Path root) {
    this.root = root.toAbsolutePath().normalize();
    this.tmp = this.root.resolve(TMP_DIR);
    try {
      Files.createDirectories(tmp);
    } catch (IOException e) {
      throw new ObjectStoreException("open", this.root.toString(),
          "cannot create the store directory: " + e, e);
    }
  }

  /** The directory holding the objects. */
  public Path root() {
    return root;
  }

  @Override
  public void put(String path, byte[] bytes) {
    put(path, List.of(ByteBuffer.wrap(bytes)));
  }

  @Override
  public void put(String path, List<ByteBuffer> parts) {
    Path target = resolve(path);
    Path temp = null;
    try {
      Files.createDirectories(target.getParent());
      temp = Files.createTempFile(tmp, "put-", ".tmp");
      try (FileChannel ch = FileChannel.open(temp, StandardOpenOption.WRITE)) {
        ByteBuffer[] bufs = new ByteBuffer[parts.size()];
        long left = 0;
        for (int i = 0; i < bufs.length; i++) {
          bufs[i] = parts.get(i).duplicate(); // the caller's positions stay
          left += bufs[i].remaining();
        }
        while (left > 0) {
          left -= ch.write(bufs);
        }
        ch.force(true);
      }
      Files.move(temp, target, StandardCopyOption.ATOMIC_MOVE,
          StandardCopyOption.REPLACE_EXISTING);
      temp = null;
    } catch (IOException | UncheckedIOException e) {
      throw new ObjectStoreException("put", path, e.toString(), e);
    } finally {
      if (temp != null) {
        try {
          Files.deleteIfExists(temp);
        } catch (IOException ignored) {
          // the put already failed; a leftover temp file is harmless
        }
      }
    }
  }

  @Override
  public byte[] get(String path) {
    Path file = resolve(path);
    try {
      return Files.readAllBytes(file);
    } catch (NoSuchFileException e) {
      throw new ObjectNotFoundException("get", path);
    } catch (IOException e) {
      throw new ObjectStoreException("get", path, e.toString(), e);
    }
  }

  @Override
  public byte[] getRange(String path, long offset, int length) {
    if (offset < 0 || length < 0) {
      throw new IllegalArgumentException("getRange of '" + path + "' refused: offset " + offset
          + " and length " + length + " must not be negative");
    }
    Path file = resolve(path);
    try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
      long size = ch.size();
      if (offset + length > size) {
        throw new ObjectStoreException("getRange", path, "range [" + offset + ", "
            + (offset + length) + ") extends past the object size " + size);
      }
      ByteBuffer buf = ByteBuffer.allocate(length);
      long pos = offset;
      while (buf.hasRemaining()) {
        int n = ch.read(buf, pos);
        if (n < 0) {
          throw new ObjectStoreException("getRange", path,
              "object shrank to " + pos + " bytes during the read");
        }
        pos += n;
      }
      return buf.array();
    } catch (NoSuchFileException e) {
      throw new ObjectNotFoundException("getRange", path);
    } catch (IOException e) {
      throw new ObjectStoreException("getRange", path, e.toString(), e);
    }
  }

  @Override
  public List<String> list(String prefix) {
    int slash = prefix.lastIndexOf('/');
    Path start = slash < 0 ? root : resolveDir(prefix.substring(0, slash));
    List<String> out = new ArrayList<>();
    if (start == null || !Files.isDirectory(start)) {
      return out;
    }
    Deque<Path> dirs = new ArrayDeque<>();
    dirs.push(start);
    try {
      while (!dirs.isEmpty()) {
        Path dir = dirs.pop();
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(dir)) {
          for (Path entry : entries) {
            if (entry.equals(tmp)) {
              continue;
            }
            if (Files.isDirectory(entry)) {
              dirs.push(entry);
            } else {
              String rel = relative(entry);
              if (rel.startsWith(prefix)) {
                out.add(rel);
              }
            }
          }
        } catch (NoSuchFileException e) {
          // directory removed concurrently: nothing to list there
        }
      }
    } catch (IOException e) {
      throw new ObjectStoreException("list", prefix, e.toString(), e);
    }
    Collections.sort(out);
    return out;
  }

  @Override
  public void delete(String path) {
    try {
      Files.deleteIfExists(resolve(path));
    } catch (IOException e) {
      throw new ObjectStoreException("delete", path, e.toString(), e);
    }
  }

  @Override
  public boolean exists(String path) {
    return Files.isRegularFile(resolve(path));
  }

  private Path resolve(String path) {
    ObjectPaths.check(path);
    if (path.equals(TMP_DIR) || path.startsWith(TMP_DIR + "/")) {
      throw new IllegalArgumentException("object path '" + path
          + "' is refused: the folder '.tmp' holds the store's temporary files");
    }
    return root.resolve(path);
  }

  /** The directory of a list prefix, or null if the prefix cannot name any object. */
  private Path resolveDir(String dir) {
    try {
      return resolve(dir);
    } catch (IllegalArgumentException e) {
      return null;
    }
  }

  private String relative(Path file) {
    Path rel = root.relativize(file);
    StringBuilder sb = new StringBuilder();
    for (Path part : rel) {
      if (sb.length() > 0) {
        sb.append('/');
      }
      sb.append(part);
    }
    return sb.toString();
  }

  @Override
  public String toString() {
    return "LocalObjectStore(" + root + ")";
  }
}
