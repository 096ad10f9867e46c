package dev.tide.optimizer.provider;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Optimizer instances as threads of this JVM (the embedded default): {@code factory} starts one and
 * returns what stops it. Thread-safety: methods are synchronized; the factory and the close run under
 * the lock, so they must not call back into the provider.
 */
public final class InProcessProvider implements ResourceProvider {
  public static final String NAME = "in-process";
  private static final Logger LOG = LoggerFactory.getLogger(InProcessProvider.class);

  private final Function<LaunchSpec, AutoCloseable> factory;
  private final SortedMap<String, Running> running = new TreeMap<>();

  private record Running(LaunchSpec spec, AutoCloseable handle) {}

  /** @param factory starts an in-process optimizer for a spec; throws if it cannot */
  public InProcessProvider(Function<LaunchSpec, AutoCloseable> factory) {
    this.factory = Objects.requireNonNull(factory, "factory");
  }

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public synchronized void request(LaunchSpec spec) {
    if (running.containsKey(spec.resourceId())) {
      return;
    }
    AutoCloseable handle;
    try {
      handle = Objects.requireNonNull(factory.apply(spec), "the optimizer factory returned null");
    } catch (RuntimeException e) {
      throw new ProviderException("in-process optimizer " + spec.resourceId() + " of group " + spec.group() + " did not start: " + e, e);
    }
    running.put(spec.resourceId(), new Running(spec, handle));
  }

  @Override
  public synchronized void release(String resourceId) {
    Running r = running.get(resourceId);
    if (r == null) {
      return;
    }
    try {
      r.handle().close();
    } catch (Exception e) {
      throw new ProviderException("in-process optimizer " + resourceId + " did not stop: " + e, e);
    }
    running.remove(resourceId);
  }

  @Override
  public synchronized List<LaunchSpec> list() {
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
