package dev.tide.cli;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

/** The temporary data directories of the playground and the benchmarks. */
public final class TempDirs {
  private TempDirs() {}

  /** Deletes {@code root} and everything below it, best effort: a leftover temporary directory is harmless. */
  public static void deleteTree(Path root) {
    try (Stream<Path> paths = Files.walk(root)) {
      paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException e) {
      // left for the system's temporary-file cleanup
    }
  }
}
