package dev.tide.stream.expr;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Instant;
import org.junit.jupiter.api.Test;

/** The string and date/time functions against PostgreSQL's answers (as psql prints them). */
class ScalarFunctionsTest {
  private static long ts(String iso) {
    return Instant.parse(iso).toEpochMilli();
  }

  @Test
  void substringCountsFromOneAndClipsLikePostgres() {
    assertThat(ScalarFunctions.substring("Thomas", 2, 3L)).isEqualTo("hom");
    assertThat(ScalarFunctions.substring("Thomas", 3, null)).isEqualTo("omas");
    assertThat(ScalarFunctions.substring("Thomas", 0, 2L)).isEqualTo("T"); // positions 0 and 1
    assertThat(ScalarFunctions.substring("Thomas", -5, 3L)).isEqualTo("");
    assertThat(ScalarFunctions.substring("Thomas", 9, 3L)).isEqualTo("");
    assertThat(ScalarFunctions.substring("añb", 2, 1L)).isEqualTo("ñ");
    assertThat(ScalarFunctions.substring("Thomas", 1, -1L)).isNull();
  }

  @Test
  void splitPartCountsFieldsFromEitherEnd() {
    assertThat(ScalarFunctions.splitPart("abc~@~def~@~ghi", "~@~", 2)).isEqualTo("def");
    assertThat(ScalarFunctions.splitPart("abc,def,ghi,jkl", ",", -2)).isEqualTo("ghi");
    assertThat(ScalarFunctions.splitPart("a/b", "/", 5)).isEqualTo("");
    assertThat(ScalarFunctions.splitPart("https://www.a.com/item?id=1", "/", 4)).isEqualTo("item?id=1");
    assertThat(ScalarFunctions.splitPart("a.b", ".", 2)).isEqualTo("b"); // the delimiter is text, not a pattern
  }

  @Test
  void regularExpressions() {
    assertThat(ScalarFunctions.regexpReplace("foobarbaz", "b..", "X", null)).isEqualTo("fooXbaz");
    assertThat(ScalarFunctions.regexpReplace("foobarbaz", "b..", "X", "g")).isEqualTo("fooXX");
    assertThat(ScalarFunctions.regexpReplace("foobarbaz", "b(..)", "X\\1Y", "g")).isEqualTo("fooXarYXazY");
    assertThat(ScalarFunctions.regexpReplace("A1", "a", "$", "i")).isEqualTo("$1");
    assertThat(ScalarFunctions.regexpExtract("x=1&channel_id=7&y", "(&|^)channel_id=([^&]*)", 2)).isEqualTo("7");
    assertThat(ScalarFunctions.regexpExtract("nothing", "(&|^)channel_id=([^&]*)", 2)).isNull();
    assertThat(ScalarFunctions.regexpLike("abc", "^a.c$")).isTrue();
    assertThat(ScalarFunctions.like("Google", "Goo%", null)).isTrue();
    assertThat(ScalarFunctions.like("Google", "_oogle", null)).isTrue();
    assertThat(ScalarFunctions.like("a%b", "a!%b", "!")).isTrue();
    assertThat(ScalarFunctions.like("axb", "a!%b", "!")).isFalse();
    assertThat(ScalarFunctions.like("a.b", "a.b", null)).isTrue();
    assertThat(ScalarFunctions.like("axb", "a.b", null)).isFalse();
    assertThatThrownBy(() -> ScalarFunctions.checkPattern("a(")).hasMessageContaining("bad regular expression 'a('");
    // A bad pattern met in a row (from a column) gives NULL, not a failed actor.
    assertThat(ScalarFunctions.regexpLike("abc", "a(")).isNull();
    assertThat(ScalarFunctions.regexpReplace("abc", "a(", "x", null)).isNull();
    assertThat(ScalarFunctions.regexpExtract("abc", "a(", 0)).isNull();
  }

  @Test
  void positionAndTrim() {
    assertThat(ScalarFunctions.position("om", "Thomas")).isEqualTo(3);
    assertThat(ScalarFunctions.position("x", "Thomas")).isEqualTo(0);
    assertThat(ScalarFunctions.trim("both", "xy", "xyxtrimyyx")).isEqualTo("trim");
    assertThat(ScalarFunctions.trim("leading", " ", "  a ")).isEqualTo("a ");
    assertThat(ScalarFunctions.trim("trailing", " ", "  a ")).isEqualTo("  a");
  }

  @Test
  void extractAndTruncate() {
    long t = ts("2001-02-16T20:38:40.123Z"); // a Friday
    assertThat(ScalarFunctions.extract("year", t)).isEqualTo(2001);
    assertThat(ScalarFunctions.extract("quarter", t)).isEqualTo(1);
    assertThat(ScalarFunctions.extract("month", t)).isEqualTo(2);
    assertThat(ScalarFunctions.extract("week", t)).isEqualTo(7);
    assertThat(ScalarFunctions.extract("day", t)).isEqualTo(16);
    assertThat(ScalarFunctions.extract("dow", t)).isEqualTo(5);
    assertThat(ScalarFunctions.extract("isodow", ts("2001-02-18T00:00:00Z"))).isEqualTo(7);
    assertThat(ScalarFunctions.extract("dow", ts("2001-02-18T00:00:00Z"))).isEqualTo(0);
    assertThat(ScalarFunctions.extract("doy", t)).isEqualTo(47);
    assertThat(ScalarFunctions.extract("hour", t)).isEqualTo(20);
    assertThat(ScalarFunctions.extract("minute", t)).isEqualTo(38);
    assertThat(ScalarFunctions.extract("second", t)).isEqualTo(40);
    assertThat(ScalarFunctions.extract("millisecond", t)).isEqualTo(40_123);
    assertThat(ScalarFunctions.extract("epoch", t)).isEqualTo(982355920);
    assertThat(ScalarFunctions.extract("epoch", -1)).isEqualTo(-1);
    assertThat(ScalarFunctions.dateTrunc("hour", t)).isEqualTo(ts("2001-02-16T20:00:00Z"));
    assertThat(ScalarFunctions.dateTrunc("day", t)).isEqualTo(ts("2001-02-16T00:00:00Z"));
    assertThat(ScalarFunctions.dateTrunc("week", t)).isEqualTo(ts("2001-02-12T00:00:00Z"));
    assertThat(ScalarFunctions.dateTrunc("month", t)).isEqualTo(ts("2001-02-01T00:00:00Z"));
    assertThat(ScalarFunctions.dateTrunc("quarter", ts("2001-05-16T20:38:40Z"))).isEqualTo(ts("2001-04-01T00:00:00Z"));
    assertThat(ScalarFunctions.dateTrunc("year", t)).isEqualTo(ts("2001-01-01T00:00:00Z"));
    assertThat(ScalarFunctions.dateTrunc("second", t)).isEqualTo(ts("2001-02-16T20:38:40Z"));
    assertThat(ScalarFunctions.dateTrunc("minute", ts("1969-12-31T23:59:59.500Z"))).isEqualTo(ts("1969-12-31T23:59:00Z"));
    assertThatThrownBy(() -> ScalarFunctions.checkUnit("fortnight", ScalarFunctions.TRUNC_UNITS, "date_trunc"))
        .hasMessageContaining("date_trunc unit 'fortnight' is not supported; supported: year");
  }

  @Test
  void toCharFollowsPostgresTemplates() {
    long t = ts("2001-02-16T20:38:40.123Z");
    assertThat(ScalarFunctions.toChar(t, "YYYY-MM-DD")).isEqualTo("2001-02-16");
    assertThat(ScalarFunctions.toChar(t, "HH24:MI:SS.MS")).isEqualTo("20:38:40.123");
    assertThat(ScalarFunctions.toChar(t, "HH12 AM")).isEqualTo("08 PM");
    assertThat(ScalarFunctions.toChar(t, "Dy, DD Mon YY")).isEqualTo("Fri, 16 Feb 01");
    assertThat(ScalarFunctions.toChar(t, "\"day\" DDD \"of\" YYYY")).isEqualTo("day 047 of 2001");
    assertThat(ScalarFunctions.toChar(t, "Q")).isEqualTo("1");
    assertThatThrownBy(() -> ScalarFunctions.checkFormat("YYYY-WW")).hasMessageContaining("pattern at 'WW' is not supported");
  }
}
