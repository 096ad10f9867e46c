package dev.tide.meta.scale;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.Locale;

/**
 * Parallelism intent of a job or fragment: a fixed actor count, or an adaptive one derived from the
 * slots of the schedulable workers. Textual forms (case-insensitive, spaces allowed): {@code "4"},
 * {@code "adaptive"}, {@code "bounded(4)"}, {@code "ratio(0.5)"}; {@link #render()} is the inverse of
 * {@link #parse(String)}.
 *
 * <p>{@link #resolve(int)} does not cap the result: the planner clamps it to {@code [1, cap]} per
 * ensemble, where cap is the ensemble's largest usable parallelism.
 */
public sealed interface Intent {
  /** The accepted textual forms, for error messages. */
  String FORMS = "a positive integer N, 'adaptive', 'bounded(N)' with N >= 1, or 'ratio(R)' with 0 < R <= 1";

  /** Adaptive modes: all slots, all slots up to a bound, or a fraction of the slots. */
  enum Mode { FULL, BOUNDED, RATIO }

  /** Exactly {@code parallelism} actors (≥ 1), whatever the cluster offers. */
  record Fixed(int parallelism) implements Intent {
    public Fixed {
      if (parallelism < 1) {
        throw new IllegalArgumentException("fixed parallelism " + parallelism + " is not valid: expected " + FORMS);
      }
    }

    @Override
    public int resolve(int totalSlots) {
      return parallelism;
    }

    @Override
    public String render() {
      return Integer.toString(parallelism);
    }
  }

  /**
   * Follows the cluster's slots. {@code bound} is used by {@link Mode#BOUNDED} only (≥ 1; 0 otherwise),
   * {@code ratio} by {@link Mode#RATIO} only (in (0, 1]; 1.0 otherwise), so equal intents are equal values.
   */
  record Adaptive(Mode mode, int bound, double ratio) implements Intent {
    public Adaptive {
      if (mode == null) {
        throw new IllegalArgumentException("adaptive intent needs a mode: " + java.util.Arrays.toString(Mode.values()));
      }
      switch (mode) {
        case FULL -> {
          if (bound != 0 || ratio != 1.0) {
            throw new IllegalArgumentException("adaptive intent FULL takes no bound or ratio (got bound " + bound + ", ratio " + ratio
                + "); use Intent.adaptive()");
          }
        }
        case BOUNDED -> {
          if (bound < 1 || ratio != 1.0) {
            throw new IllegalArgumentException("bounded parallelism bound " + bound + " (ratio " + ratio + ") is not valid: expected " + FORMS);
          }
        }
        case RATIO -> {
          if (bound != 0 || !(ratio > 0.0 && ratio <= 1.0)) {
            throw new IllegalArgumentException("parallelism ratio " + ratio + " (bound " + bound + ") is not valid: expected " + FORMS);
          }
        }
        default -> throw new AssertionError(mode);
      }
    }

    @Override
    public int resolve(int totalSlots) {
      if (totalSlots < 0) {
        throw new IllegalArgumentException("total slots " + totalSlots + " is negative");
      }
      return switch (mode) {
        case FULL -> totalSlots;
        case BOUNDED -> Math.min(bound, totalSlots);
        // Decimal arithmetic: floor(0.29 * 100) must be 29, not 28 as in binary floating point.
        case RATIO -> Math.max(1, BigDecimal.valueOf(ratio).multiply(BigDecimal.valueOf(totalSlots))
            .setScale(0, RoundingMode.FLOOR).intValueExact());
      };
    }

    @Override
    public String render() {
      return switch (mode) {
        case FULL -> "adaptive";
        case BOUNDED -> "bounded(" + bound + ")";
        case RATIO -> "ratio(" + BigDecimal.valueOf(ratio).stripTrailingZeros().toPlainString() + ")";
      };
    }
  }

  static Intent fixed(int parallelism) {
    return new Fixed(parallelism);
  }

  /** All slots of the schedulable workers. */
  static Intent adaptive() {
    return new Adaptive(Mode.FULL, 0, 1.0);
  }

  static Intent bounded(int bound) {
    return new Adaptive(Mode.BOUNDED, bound, 1.0);
  }

  static Intent ratio(double ratio) {
    return new Adaptive(Mode.RATIO, 0, ratio);
  }

  /**
   * Parses {@code "4"}, {@code "adaptive"}, {@code "bounded(4)"} or {@code "ratio(0.5)"}.
   *
   * @throws IllegalArgumentException naming the value and the accepted forms
   */
  static Intent parse(String text) {
    if (text == null) {
      throw new IllegalArgumentException("parallelism is missing: expected " + FORMS);
    }
    String t = text.strip().toLowerCase(Locale.ROOT).replaceAll("\\s*([()])\\s*", "$1");
    try {
      if (t.equals("adaptive")) {
        return adaptive();
      }
      if (t.matches("\\d{1,10}")) {
        return fixed(Integer.parseInt(t));
      }
      if (t.matches("bounded\\(\\d{1,10}\\)")) {
        return bounded(Integer.parseInt(t.substring("bounded(".length(), t.length() - 1)));
      }
      if (t.matches("ratio\\((\\d+(\\.\\d*)?|\\.\\d+)(e-?\\d{1,3})?\\)")) {
        return ratio(Double.parseDouble(t.substring("ratio(".length(), t.length() - 1)));
      }
    } catch (IllegalArgumentException e) {
      // too many digits, or a value out of range: one message for every malformed form
    }
    throw new IllegalArgumentException("parallelism '" + text + "' is not valid: expected " + FORMS);
  }

  /** The actor count this intent asks for on a cluster offering {@code totalSlots} slots (not yet capped). */
  int resolve(int totalSlots);

  /** The textual form accepted by {@link #parse(String)}. */
  String render();
}
