package dev.tide.optimizer.dra;

import java.util.Map;

/**
 * The words a pool's decisions are told in: what its scaling unit is called (an optimizer group adds
 * <em>instances</em> of K <em>threads</em>; the compute pool adds <em>nodes</em> of K <em>slots</em>)
 * and the names of the options its reasons cite, so that each pool's reasons name what its operator
 * sees and configures. The rules are the same for every pool; only the words differ.
 *
 * @param unit the scaling unit, singular
 * @param share what a unit holds K of, singular
 * @param options option names as the optimizer groups call them ({@code max-parallelism}, …) → as
 *     this pool's operator does; unlisted names are kept
 */
public record Terms(String unit, String share, Map<String, String> options) {
  /** An optimizer group's words: instances, threads, the {@code dynamic-allocation.*} option names. */
  public static final Terms OPTIMIZER = new Terms("instance", "thread", Map.of());

  public Terms {
    options = Map.copyOf(options);
  }

  /** {@code n} units, e.g. "2 instances", "1 node". */
  public String units(long n) {
    return n + " " + unit + plural(n);
  }

  /** {@code n} shares, e.g. "4 threads", "1 slot". */
  public String shares(long n) {
    return n + " " + share + plural(n);
  }

  /** The unit with its indefinite article: "an instance", "a node". */
  public String aUnit() {
    return ("aeiou".indexOf(unit.charAt(0)) >= 0 ? "an " : "a ") + unit;
  }

  /** The share's plural, as in "active threads 4 → 3". */
  public String sharePlural() {
    return share + "s";
  }

  /** An option's name as this pool's operator knows it. */
  public String option(String name) {
    return options.getOrDefault(name, name);
  }

  /** The plural ending of a count: "" for 1, "s" otherwise. */
  static String plural(long n) {
    return n == 1 ? "" : "s";
  }
}
