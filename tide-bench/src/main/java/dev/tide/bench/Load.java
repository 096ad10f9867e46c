package dev.tide.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** The machine's load averages, recorded beside each run: this machine is shared. */
final class Load {
  private Load() {}

  /** "1m 5m 15m" load averages from /proc/loadavg, or "n/a". */
  static String now() {
    try {
      String[] p = Files.readString(Path.of("/proc/loadavg")).trim().split("\\s+");
      return p[0] + " " + p[1] + " " + p[2];
    } catch (IOException | RuntimeException e) {
      return "n/a";
    }
  }
}
