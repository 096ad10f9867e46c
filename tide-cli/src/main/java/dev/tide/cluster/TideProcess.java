package dev.tide.cluster;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A Tide command ({@code tide meta}, {@code tide compute}, {@code tide optimizer}) running as a
 * child JVM with this JVM's java and classpath, its output in a log file.
 */
public record TideProcess(String name, Process process, Path log) {
  public static final Pattern META_READY = Pattern.compile("meta ready grpc=\\S+:(\\d+) http=(-?\\d+)");
  public static final Pattern COMPUTE_READY = Pattern.compile("compute ready worker=(\\d+) port=(\\d+)");

  /**
   * Starts {@code tide <args>} and waits until its output matches {@code ready}.
   *
   * @return the process and the match of its ready line
   * @throws IllegalStateException with the child's output when it exits or is not ready within {@code guard}
   */
  public static Started start(String name, List<String> args, Path log, Pattern ready, Duration guard) {
    return startMain(name, "dev.tide.cli.TideCli", args, log, ready, guard);
  }

  /** Like {@link #start}, for any main class on this JVM's classpath. */
  public static Started startMain(String name, String mainClass, List<String> args, Path log, Pattern ready, Duration guard) {
    List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-Xmx512m", "-XX:+UseSerialGC", "-cp", System.getProperty("java.class.path"), mainClass));
    command.addAll(args);
    Process p;
    try {
      p = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot start " + name + ": " + e.getMessage(), e);
    }
    TideProcess t = new TideProcess(name, p, log);
    Instant until = Instant.now().plus(guard);
    while (Instant.now().isBefore(until)) {
      Matcher m = ready.matcher(t.output());
      if (m.find()) {
        return new Started(t, m.toMatchResult());
      }
      if (!p.isAlive()) {
        throw new IllegalStateException(name + " exited with " + p.exitValue() + " before it was ready:\n" + t.output());
      }
      try {
        Thread.sleep(100);
      } catch (InterruptedException e) {
        p.destroyForcibly();
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted while starting " + name, e);
      }
    }
    p.destroyForcibly();
    throw new IllegalStateException(name + " was not ready within " + guard + ":\n" + t.output());
  }

  /** A started process and its ready line. */
  public record Started(TideProcess process, java.util.regex.MatchResult ready) {}

  /** SIGKILL: the process gets no chance to clean up. */
  public void kill() {
    process.destroyForcibly();
    await();
  }

  /** SIGTERM: the process runs its shutdown hooks. */
  public void stop() {
    process.destroy();
    await();
    if (process.isAlive()) {
      kill();
    }
  }

  private void await() {
    try {
      process.waitFor(30, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  public String output() {
    try {
      return Files.readString(log);
    } catch (IOException e) {
      return "(no log: " + e + ")";
    }
  }
}
