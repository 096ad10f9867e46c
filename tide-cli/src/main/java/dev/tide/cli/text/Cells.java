package dev.tide.cli.text;

import dev.tide.proto.plan.DataTypeProto;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Locale;
import java.util.regex.Pattern;

/** Formats values for the CLI's tables: grouped counts, rates, and view cells by column type. */
public final class Cells {
  private static final Pattern NUMBER = Pattern.compile("-?[0-9][0-9,]*(\\.[0-9]+)?");
  private static final DateTimeFormatter TIME = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss").withZone(ZoneOffset.UTC);
  private static final DateTimeFormatter TIME_MS = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss.SSS").withZone(ZoneOffset.UTC);

  private Cells() {}

  /** {@code 1234567} as {@code 1,234,567}. */
  public static String count(long n) {
    return String.format(Locale.ROOT, "%,d", n);
  }

  /** A non-negative figure with {@code decimals} digits after the point. */
  public static String decimal(double v, int decimals) {
    return String.format(Locale.ROOT, "%,." + decimals + "f", v);
  }

  static boolean isNumber(String cell) {
    return NUMBER.matcher(cell).matches();
  }

  /** A cell of a view: timestamps (epoch milliseconds) in UTC, doubles with two decimals. */
  public static String value(Object v, DataTypeProto type) {
    if (v == null) {
      return "NULL";
    }
    return switch (type) {
      case TIMESTAMP -> {
        long ms = ((Number) v).longValue();
        yield (ms % 1000 == 0 ? TIME : TIME_MS).format(Instant.ofEpochMilli(ms));
      }
      case DOUBLE -> String.format(Locale.ROOT, "%.2f", ((Number) v).doubleValue());
      default -> String.valueOf(v);
    };
  }
}
