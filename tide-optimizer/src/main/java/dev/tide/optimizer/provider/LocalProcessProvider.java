package dev.tide.optimizer.provider;

import dev.tide.common.auth.ClusterToken;
import dev.tide.common.config.ConfigOption;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Optimizer instances or compute nodes ({@link Settings#role}) as JVM processes on this machine: each
 * request runs {@code java -cp <classpath> <main> optimizer --meta HOST:PORT --threads K --group G --resource-id R [extra args]}
 * (or {@code compute --meta HOST:PORT --slots K --resource-id R [extra args]}) with the running JVM's
 * {@code java}, its output appended to {@code <logDir>/<resourceId>.log}. A release sends SIGTERM
 * ({@link Process#destroy()}), waits up to {@link Settings#stopTimeout()}, then kills
 * ({@link Process#destroyForcibly()}). A process that exited by itself (a drained compute node leaves
 * when meta tells it to) is no longer held: {@link #list()} leaves it out.
 *
 * <p>Group property {@code local.jvm-options} (whitespace-separated, e.g. {@code -Xmx512m}) goes before
 * the main class. Processes die with the provider: {@link #close()} stops them all. A process outlives a
 * provider that did not close (its meta was killed): each process carries its group in a JVM property
 * ({@value #GROUP_PROPERTY}), and a provider built later with the same settings adopts the processes
 * whose command line is one it would run (same class path, main class, meta address, role arguments and
 * extra arguments), so that they are listed, released and closed as its own.
 *
 * <p>Thread-safety: methods are synchronized.
 */
public final class LocalProcessProvider implements ResourceProvider {
  public static final String NAME = "local";
  /** The group property whose whitespace-separated words are passed to the optimizer JVM. */
  public static final ConfigOption<String> JVM_OPTIONS = ConfigOption.stringOption("local.jvm-options", "",
      "Options of the JVMs of the group's processes, separated by whitespace, e.g. -Xmx512m.");
  /** The entry point of the {@code tide} command line. */
  public static final String TIDE_MAIN = "dev.tide.cli.TideCli";
  private static final Logger LOG = LoggerFactory.getLogger(LocalProcessProvider.class);

  /**
   * @param metaAddress {@code HOST:PORT} of meta's optimizer API
   * @param classpath the optimizer JVM's class path
   * @param mainClass the class whose {@code main} takes the {@code optimizer …} arguments ({@link #TIDE_MAIN})
   * @param logDir where each process's output goes
   * @param token the registration token, if meta requires one; passed in the child's environment
   *     ({@code TIDE_TOKEN}), never on its command line, where other users could read it
   * @param stopTimeout how long a release waits after SIGTERM before it kills
   * @param extraArgs more arguments after the role's own (e.g. {@code --objects DIR}: where the cluster's SSTs are)
   * @param role what the processes run
   */
  public record Settings(String metaAddress, String classpath, String mainClass, Path logDir, Optional<String> token,
      Duration stopTimeout, List<String> extraArgs, LaunchRole role) {
    public Settings {
      Objects.requireNonNull(role, "role");
      Objects.requireNonNull(metaAddress, "metaAddress");
      Objects.requireNonNull(classpath, "classpath");
      Objects.requireNonNull(mainClass, "mainClass");
      Objects.requireNonNull(logDir, "logDir");
      Objects.requireNonNull(token, "token");
      Objects.requireNonNull(stopTimeout, "stopTimeout");
      extraArgs = List.copyOf(extraArgs);
    }

    /** The tide optimizer with this JVM's class path, no token, 10 s to stop. */
    public static Settings of(String metaAddress, Path logDir) {
      return new Settings(metaAddress, System.getProperty("java.class.path"), TIDE_MAIN, logDir, Optional.empty(),
          Duration.ofSeconds(10), List.of(), LaunchRole.OPTIMIZER);
    }

    /** The same settings for processes of {@code role}, with {@code extraArgs} after the role's own arguments. */
    public Settings forRole(LaunchRole role, List<String> extraArgs) {
      return new Settings(metaAddress, classpath, mainClass, logDir, token, stopTimeout, extraArgs, role);
    }
  }

  /** The JVM property ({@code -D…=GROUP}) that marks a launched process with its group. */
  public static final String GROUP_PROPERTY = "tide.launch.group";

  private record Running(LaunchSpec spec, ProcessHandle process, Path log) {}

  private final Settings settings;
  private final String java;
  private final SortedMap<String, Running> running = new TreeMap<>();

  public LocalProcessProvider(Settings settings) {
    this.settings = Objects.requireNonNull(settings, "settings");
    this.java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    ProcessHandle.allProcesses().forEach(this::adoptIfLaunchedBySuch);
  }

  /** Holds {@code h} if a provider with these settings launched it (a previous meta's child). */
  private void adoptIfLaunchedBySuch(ProcessHandle h) {
    if (h.pid() == ProcessHandle.current().pid()) {
      return;
    }
    List<String> args = arguments(h);
    String marker = "-D" + GROUP_PROPERTY + "=";
    Optional<String> group = args.stream().filter(a -> a.startsWith(marker)).map(a -> a.substring(marker.length())).findFirst();
    int main = args.indexOf(settings.mainClass());
    int id = args.indexOf("--resource-id");
    if (group.isEmpty() || main < 0 || id < 0 || id + 1 >= args.size()) {
      return;
    }
    try {
      LaunchSpec spec = LaunchSpec.of(group.get(), args.get(id + 1), settings.role().units(args), Map.of());
      List<String> expected = new ArrayList<>(List.of(settings.mainClass()));
      expected.addAll(settings.role().args(settings.metaAddress(), spec));
      expected.addAll(settings.extraArgs());
      int cp = args.indexOf("-cp");
      boolean sameClasspath = cp >= 0 && cp + 1 < main && args.get(cp + 1).equals(settings.classpath());
      if (sameClasspath && args.subList(main, args.size()).equals(expected) && h.isAlive()) {
        running.put(spec.resourceId(), new Running(spec, h, settings.logDir().resolve(spec.resourceId() + ".log")));
        LOG.info("{} {} of group {}: process {} adopted (launched before this provider started)", settings.role().noun(),
            spec.resourceId(), spec.group(), h.pid());
      }
    } catch (RuntimeException e) {
      LOG.debug("process {} not adopted: {}", h.pid(), e.toString());
    }
  }

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public List<ConfigOption<?>> groupOptions() {
    return List.of(JVM_OPTIONS);
  }

  /** The command line of the process launched for {@code spec}. */
  public List<String> command(LaunchSpec spec) {
    List<String> cmd = new ArrayList<>(List.of(java));
    String jvm = spec.properties().getOrDefault(JVM_OPTIONS.key(), "").strip();
    if (!jvm.isEmpty()) {
      cmd.addAll(List.of(jvm.split("\\s+")));
    }
    cmd.add("-D" + GROUP_PROPERTY + "=" + spec.group());
    cmd.addAll(List.of("-cp", settings.classpath(), settings.mainClass()));
    cmd.addAll(settings.role().args(settings.metaAddress(), spec));
    cmd.addAll(settings.extraArgs());
    return cmd;
  }

  @Override
  public synchronized void request(LaunchSpec spec) {
    Running r = running.get(spec.resourceId());
    if (r != null && r.process().isAlive()) {
      return;
    }
    Path log = settings.logDir().resolve(spec.resourceId() + ".log");
    try {
      Files.createDirectories(settings.logDir());
      ProcessBuilder b = new ProcessBuilder(command(spec)).redirectErrorStream(true)
          .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
      b.environment().remove(ClusterToken.ENV); // the child gets this cluster's token or none, never the parent's by accident
      settings.token().ifPresent(t -> b.environment().put(ClusterToken.ENV, t));
      Process p = b.start();
      running.put(spec.resourceId(), new Running(spec, p.toHandle(), log));
      LOG.info("{} {} of group {} started as process {} ({} {}, log {})", settings.role().noun(), spec.resourceId(), spec.group(),
          p.pid(), spec.threads(), settings.role() == LaunchRole.OPTIMIZER ? "threads" : "slots", log);
    } catch (IOException | RuntimeException e) {
      throw new ProviderException("local " + settings.role().noun() + " " + spec.resourceId() + " of group " + spec.group()
          + " did not start: " + e, e);
    }
  }

  @Override
  public synchronized void release(String resourceId) {
    Running r = running.get(resourceId);
    if (r == null) {
      return;
    }
    ProcessHandle p = r.process();
    try {
      p.destroy();
      if (!exited(p)) {
        LOG.warn("{} {} (process {}) did not stop within {} ms of SIGTERM: killing it", settings.role().noun(), resourceId, p.pid(),
            settings.stopTimeout().toMillis());
        p.destroyForcibly();
        if (!exited(p)) {
          throw new ProviderException("local " + settings.role().noun() + " " + resourceId + " (process " + p.pid() + ") survived SIGKILL for "
              + settings.stopTimeout().toMillis() + " ms");
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new ProviderException("release of local " + settings.role().noun() + " " + resourceId + " interrupted", e);
    }
    running.remove(resourceId);
    LOG.info("{} {} (process {}) stopped", settings.role().noun(), resourceId, p.pid());
  }

  /**
   * The command line of {@code h}: from {@code /proc/PID/cmdline} where there is one, because the JDK
   * gives no arguments on Linux for a command line over 4 KiB (a class path of jars is longer).
   */
  private static List<String> arguments(ProcessHandle h) {
    Path cmdline = Path.of("/proc", Long.toString(h.pid()), "cmdline");
    try {
      if (Files.isReadable(cmdline)) {
        String all = Files.readString(cmdline, StandardCharsets.UTF_8);
        return all.isEmpty() ? List.of() : List.of(all.split("\0"));
      }
    } catch (IOException e) {
      return List.of(); // gone meanwhile, or not ours to read
    }
    return h.info().arguments().map(List::of).orElse(List.of());
  }

  /** Whether {@code p} exited within the stop timeout. */
  private boolean exited(ProcessHandle p) throws InterruptedException {
    try {
      p.onExit().get(settings.stopTimeout().toMillis(), TimeUnit.MILLISECONDS);
      return true;
    } catch (TimeoutException e) {
      return !p.isAlive();
    } catch (ExecutionException e) {
      return !p.isAlive();
    }
  }

  /** The process launched (or adopted) for {@code resourceId}, if this provider holds one. */
  public synchronized Optional<ProcessHandle> process(String resourceId) {
    return Optional.ofNullable(running.get(resourceId)).map(Running::process);
  }

  @Override
  public synchronized List<LaunchSpec> list() {
    running.values().removeIf(r -> !r.process().isAlive());
    return running.values().stream().map(Running::spec).toList();
  }

  @Override
  public synchronized void close() {
    for (String id : new ArrayList<>(running.keySet())) {
      try {
        release(id);
      } catch (ProviderException e) {
        LOG.warn("{}", e.getMessage());
      }
    }
  }
}
