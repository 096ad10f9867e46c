package dev.tide.cli;

import dev.tide.common.config.ConfigException;
import dev.tide.common.config.ConfigOption;
import dev.tide.common.config.Durations;
import java.time.Duration;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;

/**
 * Validation of command-line values beyond what picocli's types check. Each failure is a
 * {@link ParameterException} whose message names the option, the value and the expected form, so
 * the user sees one line and exit code 2.
 */
final class OptionChecks {
  private OptionChecks() {}

  /** Parses durations as {@link Durations} does: {@code 500ms}, {@code 30s}, {@code 5min}, {@code 2h}. */
  static final class DurationConverter implements CommandLine.ITypeConverter<Duration> {
    @Override
    public Duration convert(String value) {
      try {
        return Durations.parse(value);
      } catch (IllegalArgumentException e) {
        throw new CommandLine.TypeConversionException(e.getMessage());
      }
    }
  }

  static void range(CommandSpec spec, String option, long value, long min, long max) {
    if (value < min || value > max) {
      throw invalid(spec, option, String.valueOf(value), "must be between " + min + " and " + max);
    }
  }

  static void range(CommandSpec spec, String option, Duration value, Duration min, Duration max) {
    if (value.compareTo(min) < 0 || value.compareTo(max) > 0) {
      throw invalid(spec, option, Durations.format(value),
          "must be between " + Durations.format(min) + " and " + Durations.format(max));
    }
  }

  /** Checks {@code value} against a declared option's rule, reporting it under the command-line name. */
  static <T> void rule(CommandSpec spec, String option, ConfigOption<T> declared, T value, String shown) {
    try {
      declared.validate(value);
    } catch (ConfigException e) {
      throw invalid(spec, option, shown, "must be " + declared.ruleText());
    }
  }

  static ParameterException invalid(CommandSpec spec, String option, String value, String expected) {
    return new ParameterException(spec.commandLine(),
        "Invalid value for option '" + option + "': '" + value + "' " + expected);
  }
}
