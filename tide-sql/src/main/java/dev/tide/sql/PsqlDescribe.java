package dev.tide.sql;

import dev.tide.common.types.DataType;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Answers the catalog queries that psql's describe commands send — {@code \d}, {@code \dt},
 * {@code \dm}, {@code \d NAME} — from Tide's catalog, so that they work in a psql session. Tide has
 * no {@code pg_catalog}: these queries are recognized by what they read ({@code pg_class} with its
 * relkind filter, a relation by name, a relation's flags or attributes by the oid answered before)
 * and answered with as many columns as their select list has, each value from the column's
 * expression (a name, a type, a flag); what psql asks beyond that (indexes, constraints, policies,
 * publications…) is an empty result. Any other query of {@code pg_catalog} gets the usual error.
 *
 * <p>Objects: tables are relkind {@code r}, materialized views {@code m}, sources and sinks
 * {@code f} (external data, as foreign tables are). Oids are a hash of the name, stable across
 * queries and sessions.
 */
final class PsqlDescribe {
  private static final Pattern RELKINDS = Pattern.compile("c\\.relkind\\s+IN\\s*\\(([^)]*)\\)", Pattern.CASE_INSENSITIVE);
  private static final Pattern NAME_PATTERN = Pattern.compile("relname\\s+OPERATOR\\(pg_catalog\\.~\\)\\s+'((?:[^']|'')*)'",
      Pattern.CASE_INSENSITIVE);
  private static final Pattern OID = Pattern.compile("(?:oid|attrelid|adrelid|conrelid|indrelid|inhrelid|inhparent|starelid|"
      + "stxrelid|polrelid|tgrelid|prrelid|ftrelid|partrelid|classoid|objoid|evclass|ev_class|refobjid)\\s*=\\s*'?(\\d+)'?",
      Pattern.CASE_INSENSITIVE);
  private static final Pattern VIEWDEF = Pattern.compile("pg_get_viewdef\\('?(\\d+)'?", Pattern.CASE_INSENSITIVE);

  /** An object of the catalog as psql sees it. */
  record Relation(String name, String kind, String type, String definition, String server, String options) {
    long oid() {
      return 16_384L + (name.hashCode() & 0xFFFFFFL);
    }
  }

  private final Function<String, Result> engine;

  /** @param engine runs Tide's own statements (SHOW …, DESCRIBE …) */
  PsqlDescribe(Function<String, Result> engine) {
    this.engine = engine;
  }

  /** The answer to {@code sql} if it is one of psql's describe queries. */
  Optional<Result> answer(String sql) {
    if (!sql.contains("pg_catalog.")) {
      return Optional.empty();
    }
    List<String> select = selectList(sql);
    if (select.isEmpty()) {
      return Optional.empty();
    }
    String lower = sql.toLowerCase(Locale.ROOT);
    Matcher viewdef = VIEWDEF.matcher(sql);
    if (viewdef.find()) {
      Optional<Relation> r = byOid(Long.parseLong(viewdef.group(1)));
      return Optional.of(rows(select, r.map(x -> List.<List<String>>of(List.of(x.definition()))).orElse(List.of())));
    }
    if (lower.contains("from pg_catalog.pg_class c") && lower.contains("as \"schema\"") && RELKINDS.matcher(sql).find()) {
      return Optional.of(list(sql, select));
    }
    if (lower.contains("from pg_catalog.pg_class c") && select.size() == 3 && select.get(0).equals("c.oid")
        && NAME_PATTERN.matcher(sql).find()) {
      List<List<String>> out = new ArrayList<>();
      for (Relation r : matching(sql)) {
        out.add(List.of(Long.toString(r.oid()), "public", r.name()));
      }
      return Optional.of(rows(select, out));
    }
    Matcher oid = OID.matcher(sql);
    if (!oid.find()) {
      return Optional.empty();
    }
    Optional<Relation> rel = byOid(Long.parseLong(oid.group(1)));
    if (rel.isEmpty()) {
      return Optional.of(rows(select, List.of()));
    }
    if (lower.contains("c.relchecks") && lower.contains("from pg_catalog.pg_class c")) {
      return Optional.of(rows(select, List.of(select.stream().map(e -> flag(e, rel.get())).toList())));
    }
    if (lower.contains("from pg_catalog.pg_attribute a") && lower.contains("a.attname")) {
      List<List<String>> out = new ArrayList<>();
      List<Object[]> described = rel.get().type().equals("sink") ? List.of() : engine.apply("DESCRIBE " + quote(rel.get().name())).rows();
      for (Object[] c : described) {
        out.add(select.stream().map(e -> attribute(e, c)).toList());
      }
      return Optional.of(rows(select, out));
    }
    if (lower.contains("from pg_catalog.pg_foreign_table f")) { // a source's or sink's "server": its connector
      return Optional.of(rows(select, List.of(List.of(rel.get().server(), rel.get().options()))));
    }
    return Optional.of(rows(select, List.of())); // indexes, constraints, policies, publications…: none
  }

  private Result list(String sql, List<String> select) {
    Matcher m = RELKINDS.matcher(sql);
    m.find();
    String kinds = m.group(1);
    List<List<String>> out = new ArrayList<>();
    for (Relation r : matching(sql)) {
      if (kinds.contains("'" + r.kind() + "'")) {
        List<String> row = new ArrayList<>(List.of("public", r.name(), r.type(), "tide"));
        while (row.size() < select.size()) {
          row.add("");
        }
        out.add(row.subList(0, select.size()));
      }
    }
    return rows(select, out);
  }

  /** The relations whose names match the query's {@code relname ~ '…'} filter, if it has one; sorted by name. */
  private List<Relation> matching(String sql) {
    Matcher m = NAME_PATTERN.matcher(sql);
    Pattern p = null;
    if (m.find()) {
      try {
        p = Pattern.compile(m.group(1).replace("''", "'"));
      } catch (java.util.regex.PatternSyntaxException e) {
        throw new SqlException(SqlException.INVALID_PARAMETER, "invalid name pattern '" + m.group(1) + "': " + e.getDescription()
            + "; use a name, or psql's * and ? wildcards");
      }
    }
    Pattern filter = p;
    return relations().stream().filter(r -> filter == null || filter.matcher(r.name()).matches()).toList();
  }

  private Optional<Relation> byOid(long oid) {
    return relations().stream().filter(r -> r.oid() == oid).findFirst();
  }

  private static final Pattern WITH_OPTION = Pattern.compile("([^\\s=,]+) = '((?:[^']|'')*)'");

  /** SHOW SOURCES' {@code key = 'value', ...} as psql prints a foreign table's options: {@code "key" 'value', ...}. */
  static String fdwOptions(String withClause) {
    List<String> out = new ArrayList<>();
    Matcher m = WITH_OPTION.matcher(withClause);
    while (m.find()) {
      String k = m.group(1);
      out.add((k.matches("[a-z_][a-z0-9_]*") ? k : '"' + k.replace("\"", "\"\"") + '"') + " '" + m.group(2) + "'");
    }
    return String.join(", ", out);
  }

  private List<Relation> relations() {
    List<Relation> out = new ArrayList<>();
    for (Object[] r : engine.apply("SHOW TABLES").rows()) {
      out.add(new Relation((String) r[0], "r", "table", (String) r[1], "", ""));
    }
    for (Object[] r : engine.apply("SHOW MATERIALIZED VIEWS").rows()) {
      out.add(new Relation((String) r[0], "m", "materialized view", (String) r[2], "", ""));
    }
    for (Object[] r : engine.apply("SHOW SOURCES").rows()) {
      out.add(new Relation((String) r[0], "f", "source", "", (String) r[1], fdwOptions((String) r[3])));
    }
    for (Object[] r : engine.apply("SHOW SINKS").rows()) {
      out.add(new Relation((String) r[0], "f", "sink", (String) r[1], "sink", (String) r[1]));
    }
    out.sort(Comparator.comparing(Relation::name));
    return out;
  }

  /** A column of psql's query of a relation's flags: its kind, and no checks, index, rules, triggers or options. */
  private static String flag(String expr, Relation r) {
    String e = expression(expr).toLowerCase(Locale.ROOT);
    if (e.equals("c.relkind")) {
      return r.kind();
    }
    if (e.equals("c.relchecks") || e.equals("c.reltablespace")) {
      return "0";
    }
    if (e.equals("c.relpersistence")) {
      return "p";
    }
    if (e.equals("c.relreplident")) {
      return "d";
    }
    if (e.equals("am.amname")) {
      return null;
    }
    if (e.startsWith("c.relhas") || e.startsWith("c.relrow") || e.startsWith("c.relforce") || e.startsWith("false")
        || e.startsWith("c.relispartition")) {
      return "f";
    }
    return "";
  }

  /** A column of psql's query of a relation's attributes, from a row of {@code DESCRIBE}: name, type, key, note. */
  private static String attribute(String expr, Object[] column) {
    String e = expression(expr).toLowerCase(Locale.ROOT);
    if (e.equals("a.attname")) {
      return (String) column[0];
    }
    if (e.contains("format_type")) {
      return (String) column[1];
    }
    if (e.equals("a.attnotnull")) {
      return Boolean.TRUE.equals(column[2]) ? "t" : "f";
    }
    if (e.equals("a.attstorage")) {
      return "p";
    }
    if (e.contains("col_description") || e.contains("description")) {
      return (String) column[3];
    }
    if (e.contains("pg_get_expr") || e.contains("collname") || e.contains("attcollation")) {
      return null;
    }
    return "";
  }

  private static Result rows(List<String> select, List<List<String>> rows) {
    List<Column> columns = new ArrayList<>();
    for (String e : select) {
      columns.add(new Column(name(e), DataType.VARCHAR));
    }
    List<Object[]> out = new ArrayList<>();
    for (List<String> r : rows) {
      out.add(r.toArray());
    }
    return Result.rows(columns, out);
  }

  /** The expressions of the outermost select list, split at its top-level commas; empty if {@code sql} is no SELECT. */
  static List<String> selectList(String sql) {
    String s = sql.strip();
    if (!s.regionMatches(true, 0, "select", 0, 6)) {
      return List.of();
    }
    List<String> out = new ArrayList<>();
    int depth = 0;
    boolean quoted = false;
    int start = 6;
    for (int i = 6; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c == '\'') {
        quoted = !quoted;
      } else if (!quoted && (c == '(' || c == '[')) {
        depth++;
      } else if (!quoted && (c == ')' || c == ']')) {
        depth--;
      } else if (!quoted && depth == 0 && c == ',') {
        out.add(s.substring(start, i).strip());
        start = i + 1;
      } else if (!quoted && depth == 0 && s.regionMatches(true, i, " from ", 0, 6) || !quoted && depth == 0 && c == '\n'
          && s.regionMatches(true, i + 1, "from ", 0, 5)) {
        out.add(s.substring(start, i).strip());
        return out;
      }
    }
    out.add(s.substring(start).strip());
    return out;
  }

  private static final Pattern ALIAS = Pattern.compile("(?is)^(.*?)\\s+as\\s+\"?([a-z_ ]+?)\"?$");

  /** An expression without its {@code AS alias}. */
  private static String expression(String expr) {
    Matcher m = ALIAS.matcher(expr);
    return m.matches() ? m.group(1).strip() : expr;
  }

  /** The column's name: its alias, else the expression's last name ({@code c.relname} → {@code relname}). */
  private static String name(String expr) {
    Matcher m = ALIAS.matcher(expr);
    if (m.matches()) {
      return m.group(2);
    }
    String e = expr.replaceAll("(?s)\\(.*", "");
    return e.substring(e.lastIndexOf('.') + 1);
  }

  private static String quote(String name) {
    return "\"" + name.replace("\"", "\"\"") + "\"";
  }
}
