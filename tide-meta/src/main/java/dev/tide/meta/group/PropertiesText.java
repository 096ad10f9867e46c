package dev.tide.meta.group;

import java.io.IOException;
import java.io.StringReader;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.util.Map;
import java.util.Properties;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * Group and table properties as the meta store keeps them: one {@code key=value} line per property, sorted by key,
 * escaped as {@link Properties} escapes them (so any key or value survives), readable in {@code sqlite3}.
 */
public final class PropertiesText {
  private PropertiesText() {}

  public static String render(Map<String, String> properties) {
    StringBuilder sb = new StringBuilder();
    for (Map.Entry<String, String> e : new TreeMap<>(properties).entrySet()) {
      Properties one = new Properties();
      one.setProperty(e.getKey(), e.getValue());
      StringWriter w = new StringWriter();
      try {
        one.store(w, null);
      } catch (IOException ex) {
        throw new UncheckedIOException(ex);
      }
      w.toString().lines().filter(l -> !l.startsWith("#")).forEach(l -> sb.append(l).append('\n'));
    }
    return sb.toString();
  }

  /** @throws IllegalArgumentException when {@code text} is not properties text */
  public static SortedMap<String, String> parse(String text) {
    Properties p = new Properties();
    try {
      p.load(new StringReader(text));
    } catch (IOException | IllegalArgumentException e) {
      throw new IllegalArgumentException("properties text does not parse: " + e.getMessage(), e);
    }
    SortedMap<String, String> out = new TreeMap<>();
    for (String k : p.stringPropertyNames()) {
      out.put(k, p.getProperty(k));
    }
    return out;
  }
}
