package dev.tide.stream.connector;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;
import java.util.TreeMap;

/** The connectors on the class path ({@link ServiceLoader}), by name; loaded once. Thread-safe. */
public final class Connectors {
  private static Map<String, SourceConnector> sources;
  private static Map<String, SinkConnector> sinks;

  private Connectors() {}

  public static synchronized SourceConnector source(String name) {
    if (sources == null) {
      Map<String, SourceConnector> m = new TreeMap<>();
      ServiceLoader.load(SourceConnector.class).forEach(c -> m.put(c.name(), c));
      sources = m;
    }
    return sources.get(name);
  }

  public static synchronized SinkConnector sink(String name) {
    if (sinks == null) {
      Map<String, SinkConnector> m = new TreeMap<>();
      ServiceLoader.load(SinkConnector.class).forEach(c -> m.put(c.name(), c));
      sinks = m;
    }
    return sinks.get(name);
  }

  /** Names of the known source connectors, {@code nexmark} included. */
  public static synchronized List<String> sourceNames() {
    source("");
    List<String> names = new ArrayList<>(List.of("nexmark"));
    names.addAll(sources.keySet());
    return names;
  }

  public static synchronized List<String> sinkNames() {
    sink("");
    return List.copyOf(sinks.keySet());
  }
}
