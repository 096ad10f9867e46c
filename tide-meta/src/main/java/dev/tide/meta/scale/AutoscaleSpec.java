package dev.tide.meta.scale;

import java.util.Locale;

/**
 * A job handed to the autoscaler: every ensemble between {@code min} and {@code max} actors, run at
 * {@code targetUtilization} (0: the cluster's {@code autoscaler.target-utilization}). Part of the
 * job's intent, rendered {@code auto=MIN..MAX} or {@code auto=MIN..MAX@U}.
 */
public record AutoscaleSpec(int min, int max, double targetUtilization) {
  static final String FORM = "'auto=MIN..MAX' or 'auto=MIN..MAX@U' with 1 <= MIN <= MAX and 0 < U <= 1, e.g. 'auto=1..8@0.6'";

  public AutoscaleSpec {
    if (min < 1 || max < min) {
      throw new IllegalArgumentException("autoscale range " + min + ".." + max + " is not valid: min must be at least 1 and at most max");
    }
    if (!(targetUtilization >= 0 && targetUtilization <= 1)) {
      throw new IllegalArgumentException("autoscale target utilization " + targetUtilization + " is not valid: must be above 0 and at most 1");
    }
  }

  public String render() {
    String range = "auto=" + min + ".." + max;
    return targetUtilization == 0 ? range : range + "@" + String.format(Locale.ROOT, "%s", targetUtilization);
  }

  /** Parses {@link #render()}'s form. */
  static AutoscaleSpec parse(String text) {
    String t = text.strip().toLowerCase(Locale.ROOT);
    if (!t.startsWith("auto=")) {
      throw new IllegalArgumentException("'" + text.strip() + "' is not an autoscale setting: expected " + FORM);
    }
    String body = t.substring(5).strip();
    double u = 0;
    int at = body.indexOf('@');
    try {
      if (at >= 0) {
        u = Double.parseDouble(body.substring(at + 1).strip());
        body = body.substring(0, at).strip();
      }
      int dots = body.indexOf("..");
      if (dots < 0) {
        throw new NumberFormatException();
      }
      return new AutoscaleSpec(Integer.parseInt(body.substring(0, dots).strip()), Integer.parseInt(body.substring(dots + 2).strip()), u);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("'" + text.strip() + "' is not an autoscale setting: expected " + FORM);
    }
  }
}
