package dev.tide.stream.expr;

import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.time.temporal.IsoFields;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/**
 * The string and date/time functions, over boxed non-null values (callers return null for a null
 * argument), with PostgreSQL's semantics unless noted. Timestamps are milliseconds since the Unix
 * epoch, read in UTC. Regular expressions are Java's ({@link Pattern}), which accept PostgreSQL's
 * common syntax; compiled patterns and formats are cached by their text.
 *
 * <p>The {@code check*} methods validate a literal argument when the plan is built: they throw
 * {@link IllegalArgumentException} naming the bad value and the accepted ones.
 */
public final class ScalarFunctions {
  /** Units of {@code extract}: Calcite's integer semantics (SECOND without fraction, EPOCH in seconds). */
  public static final List<String> EXTRACT_UNITS = List.of("year", "quarter", "month", "week", "day", "dow", "isodow", "doy",
      "hour", "minute", "second", "millisecond", "epoch");
  public static final List<String> TRUNC_UNITS = List.of("year", "quarter", "month", "week", "day", "hour", "minute", "second",
      "millisecond");

  /** Bound of the pattern cache: patterns read from a column can be as many as its values. */
  private static final int MAX_CACHED_PATTERNS = 10_000;
  private static final Map<String, Pattern> PATTERNS = new ConcurrentHashMap<>();
  private static final Map<String, DateTimeFormatter> FORMATS = new ConcurrentHashMap<>();

  private ScalarFunctions() {}

  /** {@code substring(s from start [for len])}: 1-based; positions before 1 count but select nothing; null for a negative length. */
  public static String substring(String s, long start, Long len) {
    int n = s.codePointCount(0, s.length());
    long from = Math.max(start, 1);
    long to = len == null ? n + 1L : start + len; // exclusive, in code points
    if (len != null && len < 0) {
      return null; // PostgreSQL refuses the row; a stream cannot, so the value is null
    }
    if (to <= from || from > n) {
      return "";
    }
    int b = s.offsetByCodePoints(0, (int) from - 1);
    int e = s.offsetByCodePoints(0, (int) Math.min(to - 1, n));
    return s.substring(b, e);
  }

  /** {@code split_part(s, delimiter, n)}: field n (1-based; negative counts from the end), '' when there is none, null for 0. */
  public static String splitPart(String s, String delimiter, long n) {
    if (n == 0) {
      return null;
    }
    String[] parts = delimiter.isEmpty() ? new String[] {s} : s.split(Pattern.quote(delimiter), -1);
    long i = n > 0 ? n - 1 : parts.length + n;
    return i < 0 || i >= parts.length ? "" : parts[(int) i];
  }

  /** {@code regexp_replace(s, pattern, replacement [, flags])}: the first match, or every one with flag g; \1 refers to a group. */
  public static String regexpReplace(String s, String pattern, String replacement, String flags) {
    boolean global = flags != null && flags.indexOf('g') >= 0;
    Pattern p = pattern(pattern, flags);
    if (p == null) {
      return null;
    }
    Matcher m = p.matcher(s);
    String repl = javaReplacement(replacement);
    return global ? m.replaceAll(repl) : m.replaceFirst(repl);
  }

  /** Flink's {@code regexp_extract(s, pattern [, group])}: the group (0: the whole match) of the first match, or null. */
  public static String regexpExtract(String s, String pattern, long group) {
    Pattern p = pattern(pattern, null);
    if (p == null) {
      return null;
    }
    Matcher m = p.matcher(s);
    if (!m.find() || group < 0 || group > m.groupCount()) {
      return null;
    }
    return m.group((int) group);
  }

  /** Whether the pattern matches somewhere in s ({@code regexp_like}, PostgreSQL's {@code ~}); null for a bad pattern. */
  public static Boolean regexpLike(String s, String pattern) {
    Pattern p = pattern(pattern, null);
    return p == null ? null : p.matcher(s).find();
  }

  /** SQL {@code LIKE}: % any run, _ one character, {@code escape} (may be null) quotes the next one. */
  public static boolean like(String s, String pattern, String escape) {
    return cached("like:" + escape + ":" + pattern, () -> likePattern(pattern, escape)).matcher(s).matches();
  }

  private static Pattern likePattern(String pattern, String escape) {
    StringBuilder re = new StringBuilder();
    char esc = escape == null || escape.isEmpty() ? 0 : escape.charAt(0);
    for (int i = 0; i < pattern.length(); i++) {
      char c = pattern.charAt(i);
      if (esc != 0 && c == esc && i + 1 < pattern.length()) {
        re.append(Pattern.quote(String.valueOf(pattern.charAt(++i))));
      } else if (c == '%') {
        re.append(".*");
      } else if (c == '_') {
        re.append('.');
      } else {
        re.append(Pattern.quote(String.valueOf(c)));
      }
    }
    return Pattern.compile(re.toString(), Pattern.DOTALL);
  }

  /** Validates a regular expression given as a literal. */
  public static void checkPattern(String pattern) {
    try {
      Pattern.compile(pattern);
    } catch (PatternSyntaxException e) {
      throw new IllegalArgumentException("bad regular expression '" + pattern + "': " + e.getDescription());
    }
  }

  /**
   * The compiled pattern, or null when it is not a valid one: a pattern from a column is only seen
   * per row (literal patterns are checked when the plan is built), and a bad one must not fail the
   * actor, so its rows get NULL.
   */
  private static Pattern pattern(String pattern, String flags) {
    boolean ci = flags != null && flags.indexOf('i') >= 0;
    try {
      return cached((ci ? "i:" : "c:") + pattern, () -> Pattern.compile(pattern, ci ? Pattern.CASE_INSENSITIVE : 0));
    } catch (PatternSyntaxException e) {
      return null;
    }
  }

  private static Pattern cached(String key, java.util.function.Supplier<Pattern> compile) {
    if (PATTERNS.size() > MAX_CACHED_PATTERNS) {
      PATTERNS.clear();
    }
    return PATTERNS.computeIfAbsent(key, k -> compile.get());
  }

  /** PostgreSQL's replacement text (\1 a group, \\ a backslash) as Java's ($1, literal $). */
  private static String javaReplacement(String r) {
    StringBuilder out = new StringBuilder();
    for (int i = 0; i < r.length(); i++) {
      char c = r.charAt(i);
      if (c == '\\' && i + 1 < r.length()) {
        char d = r.charAt(++i);
        if (Character.isDigit(d)) {
          out.append('$').append(d);
        } else if (d == '&') {
          out.append("$0");
        } else {
          out.append(Matcher.quoteReplacement(String.valueOf(d)));
        }
      } else if (c == '$') {
        out.append("\\$");
      } else {
        out.append(c);
      }
    }
    return out.toString();
  }

  /** {@code position(sub in s)}: 1-based index in code points of the first occurrence, 0 if none. */
  public static int position(String sub, String s) {
    int i = s.indexOf(sub);
    return i < 0 ? 0 : s.codePointCount(0, i) + 1;
  }

  /** {@code trim(where chars from s)}; where is both, leading or trailing. */
  public static String trim(String where, String chars, String s) {
    int b = 0;
    int e = s.length();
    if (!where.equals("trailing")) {
      while (b < e && chars.indexOf(s.charAt(b)) >= 0) {
        b++;
      }
    }
    if (!where.equals("leading")) {
      while (e > b && chars.indexOf(s.charAt(e - 1)) >= 0) {
        e--;
      }
    }
    return s.substring(b, e);
  }

  public static void checkUnit(String unit, List<String> units, String fn) {
    if (!units.contains(unit)) {
      throw new IllegalArgumentException(fn + " unit '" + unit + "' is not supported; supported: " + String.join(", ", units));
    }
  }

  /** {@code extract(unit from ts)}. */
  public static long extract(String unit, long ts) {
    LocalDateTime t = LocalDateTime.ofInstant(Instant.ofEpochMilli(ts), ZoneOffset.UTC);
    return switch (unit) {
      case "year" -> t.getYear();
      case "quarter" -> (t.getMonthValue() - 1) / 3 + 1;
      case "month" -> t.getMonthValue();
      case "week" -> t.get(IsoFields.WEEK_OF_WEEK_BASED_YEAR);
      case "day" -> t.getDayOfMonth();
      case "dow" -> t.getDayOfWeek().getValue() % 7; // Sunday 0
      case "isodow" -> t.getDayOfWeek().getValue();
      case "doy" -> t.getDayOfYear();
      case "hour" -> t.getHour();
      case "minute" -> t.getMinute();
      case "second" -> t.getSecond();
      case "millisecond" -> t.getSecond() * 1000L + t.getNano() / 1_000_000;
      case "epoch" -> Math.floorDiv(ts, 1000);
      default -> throw new IllegalArgumentException("extract unit '" + unit + "'");
    };
  }

  /** {@code date_trunc(unit, ts)}: the start of the unit holding ts (weeks start on Monday). */
  public static long dateTrunc(String unit, long ts) {
    LocalDateTime t = LocalDateTime.ofInstant(Instant.ofEpochMilli(ts), ZoneOffset.UTC);
    LocalDateTime r = switch (unit) {
      case "year" -> t.toLocalDate().withDayOfYear(1).atStartOfDay();
      case "quarter" -> t.toLocalDate().withDayOfMonth(1).withMonth((t.getMonthValue() - 1) / 3 * 3 + 1).atStartOfDay();
      case "month" -> t.toLocalDate().withDayOfMonth(1).atStartOfDay();
      case "week" -> t.toLocalDate().minusDays(t.getDayOfWeek().getValue() - 1).atStartOfDay();
      case "day" -> t.truncatedTo(ChronoUnit.DAYS);
      case "hour" -> t.truncatedTo(ChronoUnit.HOURS);
      case "minute" -> t.truncatedTo(ChronoUnit.MINUTES);
      case "second" -> t.truncatedTo(ChronoUnit.SECONDS);
      case "millisecond" -> t.truncatedTo(ChronoUnit.MILLIS);
      default -> throw new IllegalArgumentException("date_trunc unit '" + unit + "'");
    };
    return r.toInstant(ZoneOffset.UTC).toEpochMilli();
  }

  /** {@code to_char(ts, format)} with a PostgreSQL template ({@link #checkFormat} lists the patterns). */
  public static String toChar(long ts, String format) {
    return FORMATS.computeIfAbsent(format, ScalarFunctions::formatter).format(Instant.ofEpochMilli(ts).atOffset(ZoneOffset.UTC));
  }

  /** Validates a {@code to_char} template given as a literal. */
  public static void checkFormat(String format) {
    formatter(format);
  }

  /**
   * The span within which {@code to_char(ts, format)} cannot change, in milliseconds: that of the
   * format's finest field (1 for MS, a second for SS, a minute for MI, an hour for the hour fields
   * and AM/PM, else a day; days are whole in UTC).
   */
  public static long formatResolutionMillis(String format) {
    long resolution = 86_400_000L;
    for (String token : tokens(format)) {
      resolution = Math.min(resolution, switch (token) {
        case "MS" -> 1L;
        case "SS" -> 1_000L;
        case "MI" -> 60_000L;
        case "HH24", "HH12", "HH", "AM", "PM" -> 3_600_000L;
        default -> 86_400_000L;
      });
    }
    return resolution;
  }

  /** The template patterns of a to_char format, in order (quoted text and separators left out). */
  private static List<String> tokens(String format) {
    List<String> out = new java.util.ArrayList<>();
    parse(format, out, new StringBuilder());
    return out;
  }

  // Longest first, so HH24 wins over HH and MONTH over MON.
  private static final String[][] TEMPLATE = {
      {"YYYY", "uuuu"}, {"HH24", "HH"}, {"HH12", "hh"}, {"Month", "MMMM"}, {"MONTH", "MMMM"}, {"Day", "EEEE"}, {"DAY", "EEEE"},
      {"DDD", "DDD"}, {"Mon", "MMM"}, {"MON", "MMM"}, {"Dy", "EEE"}, {"DY", "EEE"}, {"YY", "uu"}, {"MM", "MM"}, {"DD", "dd"},
      {"HH", "hh"}, {"MI", "mm"}, {"SS", "ss"}, {"MS", "SSS"}, {"AM", "a"}, {"PM", "a"}, {"Q", "Q"}};

  private static DateTimeFormatter formatter(String format) {
    StringBuilder p = new StringBuilder();
    parse(format, new java.util.ArrayList<>(), p);
    return DateTimeFormatter.ofPattern(p.toString(), Locale.ROOT);
  }

  /** Parses a to_char format into its template patterns and the equivalent DateTimeFormatter pattern. */
  private static void parse(String format, List<String> tokens, StringBuilder p) {
    StringBuilder text = new StringBuilder(); // literal text not yet quoted into p
    int i = 0;
    outer:
    while (i < format.length()) {
      for (String[] t : TEMPLATE) {
        if (format.startsWith(t[0], i)) {
          quote(text, p);
          tokens.add(t[0]);
          p.append(t[1]);
          i += t[0].length();
          continue outer;
        }
      }
      char c = format.charAt(i);
      if (c == '"') {
        int end = format.indexOf('"', i + 1);
        if (end < 0) {
          throw new IllegalArgumentException("to_char format '" + format + "' has an unterminated quoted text");
        }
        text.append(format, i + 1, end);
        i = end + 1;
      } else if (Character.isLetter(c)) {
        throw new IllegalArgumentException("to_char format '" + format + "': pattern at '" + format.substring(i)
            + "' is not supported; supported: YYYY YY MM Mon Month DD DDD Dy Day HH24 HH12 HH MI SS MS AM PM Q and \"text\"");
      } else {
        text.append(c);
        i++;
      }
    }
    quote(text, p);
  }

  /** Appends {@code text} to a DateTimeFormatter pattern as one quoted literal, and empties it. */
  private static void quote(StringBuilder text, StringBuilder pattern) {
    if (text.length() > 0) {
      pattern.append('\'').append(text.toString().replace("'", "''")).append('\'');
      text.setLength(0);
    }
  }
}
