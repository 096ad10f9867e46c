package dev.tide.sql;

import dev.tide.proto.plan.Plan;
import dev.tide.stream.plan.PlanBuilder.Stream;
import dev.tide.stream.plan.PlanException;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Pattern;

/**
 * The built-in Nexmark jobs ({@code tide ctl job create qN}, the playground, the benchmarks): the
 * shipped SQL definitions {@code nexmark/qN.sql} over the sources of {@code nexmark/sources.sql},
 * planned as a {@code CREATE MATERIALIZED VIEW} is. There is no other definition of these queries.
 * Each job ends in one {@link Terminal} named like the job: a materialized view, or a digest sink that
 * keeps no rows. The options go to every Nexmark source (events, rate, seed, splits, ...), in place
 * of the {@code ${...}} placeholders of {@code sources.sql}; a placeholder without a value is left
 * to the source's default.
 */
public final class NexmarkJobs {
  private static final Pattern PLACEHOLDER = Pattern.compile(",\\s*nexmark\\.[a-z.-]+\\s*=\\s*'\\$\\{[a-z-]+}'");
  private static final String CONNECTOR = "connector = 'nexmark'";

  private NexmarkJobs() {}

  /** How a job's result stream ends; named like the job. */
  @FunctionalInterface
  public interface Terminal {
    /** A materialized view: the query's result rows, durable and scannable (and followable by other views). */
    Terminal MATERIALIZE = (result, name) -> result.materialize(name);
    /** A digest sink: only the fingerprint of the result rows (the benchmarks' blackhole sink). */
    Terminal DIGEST = (result, name) -> result.digest(name);

    void end(Stream result, String name);
  }

  /**
   * The built-in queries: every shipped {@code qN.sql} that is one view over the Nexmark sources
   * (q13 also creates a table, so it is run through SQL only).
   */
  public static Set<String> names() {
    Set<String> out = new TreeSet<>(Comparator.comparingInt((String q) -> Integer.parseInt(q.substring(1))));
    for (int i = 0; i <= 22; i++) {
      if (i != 13) {
        out.add("q" + i);
      }
    }
    return out;
  }

  /** The job of {@code query} ending in a view; {@code options} go to every Nexmark source. */
  public static Plan plan(String query, Map<String, String> options) {
    return plan(query, options, Terminal.MATERIALIZE);
  }

  /** The job of {@code query} ending in {@code terminal}. */
  public static Plan plan(String query, Map<String, String> options, Terminal terminal) {
    return plan(query, query, options, terminal);
  }

  /**
   * The job of {@code query} named {@code name}, ending in {@code terminal} of the same name.
   *
   * @throws PlanException for an unknown query or an option the sources refuse (the message names it)
   */
  public static Plan plan(String query, String name, Map<String, String> options, Terminal terminal) {
    if (!names().contains(query)) {
      throw new PlanException("unknown query '" + query + "'; built-in queries: " + names());
    }
    try {
      Map<String, SourceDef> sources = sources(options);
      List<SqlEngine.Statement> view = SqlEngine.split(resource(query + ".sql"));
      Tokens t = new Tokens(view.get(0).text());
      t.expect("create");
      t.expect("materialized");
      t.expect("view");
      t.identifier("the view's name");
      t.expect("as");
      String body = t.sql().substring(t.restOffset());
      return SqlEngine.plan(name, body, 0, sources, Map.of(), s -> terminal.end(s, name)).plan();
    } catch (SqlException e) {
      throw new PlanException("built-in query " + query + ": " + e.getMessage());
    }
  }

  /** The sources of {@code sources.sql} with {@code options} as their Nexmark options, by name. */
  static Map<String, SourceDef> sources(Map<String, String> options) {
    Map<String, SourceDef> sources = new TreeMap<>();
    for (SqlEngine.Statement s : SqlEngine.split(sourcesSql(options))) {
      Tokens t = new Tokens(s.text());
      t.expect("create");
      t.expect("source");
      SourceDef def = SqlEngine.parseSource(t);
      sources.put(def.name(), def);
    }
    return sources;
  }

  /** {@code sources.sql} with {@code options} as the Nexmark options of each source. */
  static String sourcesSql(Map<String, String> options) {
    StringBuilder given = new StringBuilder(CONNECTOR);
    for (String k : options.keySet()) {
      if (!k.matches("[a-z][a-z0-9]*([.-][a-z0-9]+)*")) {
        throw new PlanException("source option '" + k + "' is not an option name (lower-case words joined by '-' or '.',"
            + " such as event-time-rate)");
      }
    }
    new TreeMap<>(options).forEach((k, v) -> given.append(", nexmark.").append(k).append(" = '")
        .append(v.replace("'", "''")).append('\''));
    return PLACEHOLDER.matcher(resource("sources.sql")).replaceAll("").replace(CONNECTOR, given);
  }

  /** The text of a shipped file under {@code nexmark/}. */
  static String resource(String file) {
    try (InputStream in = NexmarkJobs.class.getResourceAsStream("/nexmark/" + file)) {
      if (in == null) {
        throw new IllegalStateException("nexmark/" + file + " is missing from the classpath");
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
