package dev.tide.stream.expr;

import dev.tide.common.chunk.Column;
import dev.tide.common.chunk.ColumnBuilder;
import dev.tide.common.chunk.IntColumn;
import dev.tide.common.chunk.LongColumn;
import dev.tide.common.chunk.StreamChunk;
import dev.tide.common.chunk.StringColumn;
import dev.tide.common.types.DataType;
import dev.tide.proto.plan.Expr;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The string and time functions whose pattern, delimiter, unit or format is a literal, compiled
 * once for the call and evaluated column by column: over the UTF-8 bytes of the strings where the
 * function allows it (a valid UTF-8 needle matches only at character boundaries, so byte search
 * equals {@link String} search), and, for time functions, by arithmetic on the UTC milliseconds or
 * once per day, hour or minute (the last bucket's value is kept: event times arrive nearly in
 * order). Each result equals {@link ChunkExpr}'s row-wise evaluation through {@link ScalarFunctions}
 * (LiteralCallsTest checks it); null in, null out.
 *
 * <p>Not thread-safe: a compiled expression belongs to one operator of one actor.
 */
final class LiteralCalls {
  private static final long SECOND = 1_000;
  private static final long MINUTE = 60 * SECOND;
  private static final long HOUR = 60 * MINUTE;
  private static final long DAY = 24 * HOUR;

  private LiteralCalls() {}

  /** The compiled call, or null when its arguments are not of the shape handled here. */
  static ChunkExpr compile(String fn, List<Expr> argExprs, ChunkExpr[] args, DataType type) {
    Object[] lit = new Object[argExprs.size()];
    for (int i = 1; i < lit.length; i++) {
      lit[i] = literal(argExprs.get(i));
    }
    Object first = argExprs.isEmpty() ? null : literal(argExprs.get(0));
    boolean string = args.length > 0 && args[0].type() == DataType.VARCHAR;
    return switch (fn) {
      case "char_length" -> string && args.length == 1 ? new CharLength(args[0], type) : null;
      case "lower", "upper" -> string && args.length == 1 ? new Case(args[0], fn.equals("upper")) : null;
      case "replace" -> string && args.length == 3 && lit[1] instanceof String from && !from.isEmpty()
          && lit[2] instanceof String to ? new Replace(args[0], from, to) : null;
      case "split_part" -> string && args.length == 3 && lit[1] instanceof String d && !d.isEmpty()
          && lit[2] instanceof Number n && n.longValue() != 0 ? new SplitPart(args[0], d, n.longValue()) : null;
      case "regexp_extract" -> string && lit.length >= 2 && lit[1] instanceof String p
          && (lit.length == 2 || lit[2] instanceof Number) ? new RegexpExtract(args[0], Pattern.compile(p),
          lit.length == 2 ? 0 : ((Number) lit[2]).longValue()) : null;
      case "extract" -> args.length == 2 && first instanceof String unit ? new Extract(unit, args[1], type) : null;
      case "date_trunc" -> args.length == 2 && first instanceof String unit ? new DateTrunc(unit, args[1]) : null;
      case "to_char" -> args.length == 2 && lit[1] instanceof String format ? new ToChar(args[0], format) : null;
      default -> null;
    };
  }

  private static Object literal(Expr e) {
    return e.getKindCase() == Expr.KindCase.LITERAL ? ExprResolver.value(e.getLiteral()) : null;
  }

  /**
   * The longest run of plain characters that every match of {@code pattern} contains, or "" when
   * none is known: characters outside groups and classes, not escaped, not quantified, in a pattern
   * without alternation at its top level, inline flags, nested classes or escapes of more than one
   * character.
   */
  static String requiredText(String pattern) {
    if (pattern.contains("(?")) {
      return ""; // inline flags (case-insensitive, comments) change what a character matches
    }
    String best = "";
    StringBuilder run = new StringBuilder();
    int depth = 0;
    for (int i = 0; i < pattern.length(); i++) {
      char c = pattern.charAt(i);
      if (c == '\\') {
        if (i + 1 < pattern.length() && "xu0123456789pPkcQEN".indexOf(pattern.charAt(i + 1)) >= 0) {
          return ""; // escapes longer than one character (\x41, \p{L}, \Q..\E, back references): not followed here
        }
        i++; // a one-character escape: its character is not taken as plain
      } else if (c == '[') {
        int first = i + 1 < pattern.length() && pattern.charAt(i + 1) == '^' ? i + 2 : i + 1; // a ']' here is a member
        int end = first;
        while (end < pattern.length() && (pattern.charAt(end) != ']' || end == first)) {
          if (pattern.charAt(end) == '[' || pattern.charAt(end) == '\\') {
            return ""; // nested classes, intersections and escapes in a class: not followed here
          }
          end++;
        }
        i = end;
      } else if (c == '{') {
        int end = pattern.indexOf('}', i);
        i = end < 0 ? pattern.length() : end; // a quantifier's bounds are not text
      } else if (c == '(') {
        depth++;
      } else if (c == ')') {
        depth--;
      } else if (c == '|' && depth == 0) {
        return ""; // a top-level alternative need not contain it
      } else if (depth == 0 && ".^$?*+}]".indexOf(c) < 0) {
        boolean quantified = i + 1 < pattern.length() && "?*+{".indexOf(pattern.charAt(i + 1)) >= 0;
        if (!quantified && !Character.isSurrogate(c)) {
          run.append(c);
          if (run.length() > best.length()) {
            best = run.toString();
          }
          continue;
        }
      }
      run.setLength(0);
    }
    return best;
  }

  /** Integer results as a column of the call's type. */
  private static Column integers(long[] v, int n, boolean[] nulls, DataType type) {
    return switch (type) {
      case INT -> {
        int[] out = new int[n];
        for (int i = 0; i < n; i++) {
          out[i] = (int) v[i];
        }
        yield new IntColumn(out, n, nulls);
      }
      case BIGINT, TIMESTAMP -> new LongColumn(type, v, n, nulls);
      default -> {
        ColumnBuilder b = ColumnBuilder.create(type, n);
        for (int i = 0; i < n; i++) {
          b.appendObject(nulls != null && nulls[i] ? null : (Object) v[i]);
        }
        yield b.build();
      }
    };
  }

  private static boolean[] nulls(Column c) {
    return ChunkExpr.nullsOf(c, c.size());
  }

  /** Index of {@code needle} in {@code data[from, to)}, or -1. */
  private static int indexOf(byte[] data, int from, int to, byte[] needle) {
    byte first = needle[0];
    for (int i = from, last = to - needle.length; i <= last; i++) {
      if (data[i] == first && java.util.Arrays.equals(data, i, i + needle.length, needle, 0, needle.length)) {
        return i;
      }
    }
    return -1;
  }

  private static final class CharLength extends ChunkExpr {
    private final ChunkExpr arg;

    CharLength(ChunkExpr arg, DataType type) {
      super(type);
      this.arg = arg;
    }

    @Override
    public Column eval(StreamChunk c) {
      StringColumn s = (StringColumn) arg.eval(c);
      int n = s.size();
      byte[] data = s.data();
      long[] out = new long[n];
      for (int i = 0; i < n; i++) {
        int count = 0;
        for (int p = s.offset(i), end = p + s.length(i); p < end; p++) {
          if ((data[p] & 0xC0) != 0x80) { // not a continuation byte: one code point starts here
            count++;
          }
        }
        out[i] = count;
      }
      return integers(out, n, nulls(s), type);
    }
  }

  /** A function of a VARCHAR to a VARCHAR, row by row over the UTF-8 bytes; null in, null out. */
  private abstract static class StringFunction extends ChunkExpr {
    private final ChunkExpr arg;

    StringFunction(ChunkExpr arg) {
      super(DataType.VARCHAR);
      this.arg = arg;
    }

    @Override
    public final Column eval(StreamChunk c) {
      StringColumn s = (StringColumn) arg.eval(c);
      int n = s.size();
      ColumnBuilder.Strings out = (ColumnBuilder.Strings) ColumnBuilder.create(DataType.VARCHAR, n);
      for (int i = 0; i < n; i++) {
        if (s.isNull(i)) {
          out.appendNull();
        } else {
          apply(s, i, s.data(), s.offset(i), s.offset(i) + s.length(i), out);
        }
      }
      return out.build();
    }

    /** Appends the result of row {@code i} of {@code s}, whose bytes are {@code data[from, to)}. */
    abstract void apply(StringColumn s, int i, byte[] data, int from, int to, ColumnBuilder.Strings out);
  }

  /** LOWER and UPPER: ASCII rows byte by byte, others through {@link String}. */
  private static final class Case extends StringFunction {
    private final boolean upper;
    private byte[] scratch = new byte[64];

    Case(ChunkExpr arg, boolean upper) {
      super(arg);
      this.upper = upper;
    }

    @Override
    void apply(StringColumn s, int i, byte[] data, int from, int to, ColumnBuilder.Strings out) {
      int len = to - from;
      if (scratch.length < len) {
        scratch = new byte[Math.max(len, scratch.length * 2)];
      }
      for (int k = 0; k < len; k++) {
        byte x = data[from + k];
        if (x < 0) { // not ASCII
          String v = s.getString(i);
          out.append(upper ? v.toUpperCase(Locale.ROOT) : v.toLowerCase(Locale.ROOT));
          return;
        }
        if (upper) {
          scratch[k] = x >= 'a' && x <= 'z' ? (byte) (x - 32) : x;
        } else {
          scratch[k] = x >= 'A' && x <= 'Z' ? (byte) (x + 32) : x;
        }
      }
      out.append(scratch, 0, len);
    }
  }

  /** REPLACE(s, from, to) with a non-empty literal from: every occurrence, left to right. */
  private static final class Replace extends StringFunction {
    private final byte[] from;
    private final byte[] to;
    private byte[] result = new byte[64];

    Replace(ChunkExpr arg, String from, String to) {
      super(arg);
      this.from = from.getBytes(StandardCharsets.UTF_8);
      this.to = to.getBytes(StandardCharsets.UTF_8);
    }

    @Override
    void apply(StringColumn s, int i, byte[] data, int p, int end, ColumnBuilder.Strings out) {
      int hit = indexOf(data, p, end, from);
      if (hit < 0) {
        out.append(data, p, end - p);
        return;
      }
      int len = 0;
      while (hit >= 0) {
        int need = len + (hit - p) + to.length;
        if (result.length < need + (end - hit)) {
          result = java.util.Arrays.copyOf(result, Math.max(result.length * 2, need + (end - hit)));
        }
        System.arraycopy(data, p, result, len, hit - p);
        System.arraycopy(to, 0, result, len + (hit - p), to.length);
        len = need;
        p = hit + from.length;
        hit = indexOf(data, p, end, from);
      }
      System.arraycopy(data, p, result, len, end - p);
      out.append(result, 0, len + (end - p));
    }
  }

  /** SPLIT_PART(s, delimiter, n) with a non-empty literal delimiter and a literal n other than 0. */
  private static final class SplitPart extends StringFunction {
    private final byte[] delimiter;
    private final long field;
    private int[] starts = new int[16]; // start of each field of the row

    SplitPart(ChunkExpr arg, String delimiter, long field) {
      super(arg);
      this.delimiter = delimiter.getBytes(StandardCharsets.UTF_8);
      this.field = field;
    }

    @Override
    void apply(StringColumn s, int i, byte[] data, int p, int end, ColumnBuilder.Strings out) {
      int fields = 0;
      starts[fields++] = p;
      for (int hit = indexOf(data, p, end, delimiter); hit >= 0; hit = indexOf(data, hit + delimiter.length, end, delimiter)) {
        if (fields == starts.length) {
          starts = java.util.Arrays.copyOf(starts, fields * 2);
        }
        starts[fields++] = hit + delimiter.length;
        if (field > 0 && fields > field) {
          break; // the wanted field's end is known
        }
      }
      long k = field > 0 ? field - 1 : fields + field;
      if (k < 0 || k >= fields) {
        out.append(data, 0, 0);
      } else {
        int from = starts[(int) k];
        int to = k + 1 < fields ? starts[(int) k + 1] - delimiter.length : end;
        out.append(data, from, to - from);
      }
    }
  }

  /**
   * REGEXP_EXTRACT(s, pattern [, group]) with literal pattern and group. A row without the text every
   * match contains ({@link #requiredText}) has no match, so its bytes are searched for that text
   * first and the matcher runs only where it is.
   */
  private static final class RegexpExtract extends StringFunction {
    private final Matcher matcher;
    private final long group;
    private final byte[] required; // null: none known

    RegexpExtract(ChunkExpr arg, Pattern pattern, long group) {
      super(arg);
      this.matcher = pattern.matcher("");
      this.group = group;
      String text = requiredText(pattern.pattern());
      this.required = text.isEmpty() ? null : text.getBytes(StandardCharsets.UTF_8);
    }

    @Override
    void apply(StringColumn s, int i, byte[] data, int from, int to, ColumnBuilder.Strings out) {
      if (required != null && indexOf(data, from, to, required) < 0) {
        out.appendNull();
        return;
      }
      Matcher m = matcher.reset(s.getString(i));
      if (!m.find() || group < 0 || group > m.groupCount()) {
        out.appendNull();
      } else {
        out.append(m.group((int) group));
      }
    }
  }

  /**
   * A function of a timestamp and a unit: by arithmetic on the UTC milliseconds where the unit
   * allows, else through {@link ScalarFunctions} once per day (the value is constant within a UTC
   * day for every other unit).
   */
  private abstract static class TimeFunction extends ChunkExpr {
    final String unit;
    private final ChunkExpr arg;
    private long lastDay = Long.MIN_VALUE;
    private long lastValue;

    TimeFunction(String unit, ChunkExpr arg, DataType type) {
      super(type);
      this.unit = unit;
      this.arg = arg;
    }

    @Override
    public final Column eval(StreamChunk c) {
      LongColumn ts = (LongColumn) arg.eval(c);
      int n = ts.size();
      long[] out = new long[n];
      for (int i = 0; i < n; i++) {
        out[i] = ts.isNull(i) ? 0 : value(ts.getLong(i));
      }
      return integers(out, n, nulls(ts), type);
    }

    private long value(long t) {
      if (byArithmetic()) {
        return arithmetic(t);
      }
      long day = Math.floorDiv(t, DAY);
      if (day != lastDay) {
        lastValue = perDay(t);
        lastDay = day;
      }
      return lastValue;
    }

    abstract boolean byArithmetic();

    abstract long arithmetic(long t);

    abstract long perDay(long t);
  }

  /** EXTRACT(unit FROM ts): time-of-day units and epoch by arithmetic. */
  private static final class Extract extends TimeFunction {
    /** Time-of-day units: floorMod(t, modulus) / divisor; epoch: floorDiv(t, divisor); others: both 0. */
    private final long modulus;
    private final long divisor;

    Extract(String unit, ChunkExpr arg, DataType type) {
      super(unit, arg, type);
      this.modulus = switch (unit) {
        case "hour" -> DAY;
        case "minute" -> HOUR;
        case "second", "millisecond" -> MINUTE;
        default -> 0;
      };
      this.divisor = switch (unit) {
        case "hour" -> HOUR;
        case "minute" -> MINUTE;
        case "second", "epoch" -> SECOND;
        case "millisecond" -> 1;
        default -> 0;
      };
    }

    @Override
    boolean byArithmetic() {
      return divisor > 0;
    }

    @Override
    long arithmetic(long t) {
      return modulus > 0 ? Math.floorMod(t, modulus) / divisor : Math.floorDiv(t, divisor);
    }

    @Override
    long perDay(long t) {
      return ScalarFunctions.extract(unit, t);
    }
  }

  /** DATE_TRUNC(unit, ts): units up to a day by arithmetic. */
  private static final class DateTrunc extends TimeFunction {
    /** Units up to a day: their length in milliseconds; longer ones (not whole in ms): 0. */
    private final long span;

    DateTrunc(String unit, ChunkExpr arg) {
      super(unit, arg, DataType.TIMESTAMP);
      this.span = switch (unit) {
        case "millisecond" -> 1;
        case "second" -> SECOND;
        case "minute" -> MINUTE;
        case "hour" -> HOUR;
        case "day" -> DAY;
        default -> 0;
      };
    }

    @Override
    boolean byArithmetic() {
      return span > 0;
    }

    @Override
    long arithmetic(long t) {
      return t - Math.floorMod(t, span);
    }

    @Override
    long perDay(long t) {
      return ScalarFunctions.dateTrunc(unit, t);
    }
  }

  /** TO_CHAR(ts, format): formatted once per bucket of the format's finest field (ms, s, min, hour or day). */
  private static final class ToChar extends ChunkExpr {
    private final ChunkExpr arg;
    private final String format;
    private final long bucket;
    private long lastBucket = Long.MIN_VALUE;
    private byte[] lastValue;

    ToChar(ChunkExpr arg, String format) {
      super(DataType.VARCHAR);
      this.arg = arg;
      this.format = format;
      this.bucket = ScalarFunctions.formatResolutionMillis(format);
    }

    @Override
    public Column eval(StreamChunk c) {
      LongColumn ts = (LongColumn) arg.eval(c);
      int n = ts.size();
      ColumnBuilder.Strings b = (ColumnBuilder.Strings) ColumnBuilder.create(DataType.VARCHAR, n);
      for (int i = 0; i < n; i++) {
        if (ts.isNull(i)) {
          b.appendNull();
          continue;
        }
        long t = ts.getLong(i);
        long k = Math.floorDiv(t, bucket);
        if (k != lastBucket || lastValue == null) {
          lastValue = ScalarFunctions.toChar(t, format).getBytes(StandardCharsets.UTF_8);
          lastBucket = k;
        }
        b.append(lastValue, 0, lastValue.length);
      }
      return b.build();
    }
  }
}
