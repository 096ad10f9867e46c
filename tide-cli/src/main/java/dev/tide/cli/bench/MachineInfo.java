package dev.tide.cli.bench;

import dev.tide.cli.text.Cells;
import java.io.IOException;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/** The JVM and machine a benchmark ran on, as lines to print above its figures. */
public final class MachineInfo {
  private MachineInfo() {}

  public static int cores() {
    return Runtime.getRuntime().availableProcessors();
  }

  public static String jvm() {
    // "G1 Young Generation" and "G1 Old Generation" are one collector: G1.
    String gcs = ManagementFactory.getGarbageCollectorMXBeans().stream().map(GarbageCollectorMXBean::getName)
        .map(n -> n.split(" ")[0]).distinct().collect(Collectors.joining(", "));
    return System.getProperty("java.vm.name") + " " + System.getProperty("java.runtime.version")
        + ", max heap " + gib(Runtime.getRuntime().maxMemory()) + ", GC " + gcs;
  }

  public static String machine() {
    StringBuilder b = new StringBuilder();
    b.append(System.getProperty("os.name")).append(' ').append(System.getProperty("os.version")).append(' ')
        .append(System.getProperty("os.arch")).append(", ").append(cores()).append(" cores");
    if (ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.OperatingSystemMXBean os) {
      b.append(", ").append(gib(os.getTotalMemorySize())).append(" RAM");
    }
    cpuModel().ifPresent(m -> b.append(", ").append(m));
    return b.toString();
  }

  /** The CPU model from /proc/cpuinfo on Linux; empty elsewhere. */
  private static Optional<String> cpuModel() {
    Path cpuinfo = Path.of("/proc/cpuinfo");
    if (!Files.isReadable(cpuinfo)) {
      return Optional.empty();
    }
    try (Stream<String> lines = Files.lines(cpuinfo)) {
      return lines.filter(l -> l.startsWith("model name")).map(l -> l.substring(l.indexOf(':') + 1).trim()).findFirst();
    } catch (IOException | RuntimeException e) {
      return Optional.empty();
    }
  }

  private static String gib(long bytes) {
    return Cells.decimal(bytes / (double) (1L << 30), 1) + " GiB";
  }

  public static List<String> lines() {
    return List.of("JVM      " + jvm(), "Machine  " + machine());
  }
}
