package dev.tide.cli;

import dev.tide.cluster.ProcessOptions;
import dev.tide.cli.text.TextTable;
import dev.tide.common.config.ConfigOption;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.stream.Collectors;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code tide options}: every key a cluster config file may hold, with its default, unit, rule and the
 * roles that read it, generated from the {@code ConfigOption} declarations ({@link ProcessOptions#catalog}).
 */
@Command(name = "options", mixinStandardHelpOptions = true,
    description = {"Lists every configuration key of --config and --set: default, unit, rule, the roles that read it.",
        "One file serves every role: a role accepts every key listed here and ignores those it does not read."})
final class OptionsCommand implements Callable<Integer> {
  static final List<String> HEADERS = List.of("key", "default", "unit", "roles", "rule", "description");

  @Spec
  CommandSpec spec;

  @Option(names = "--markdown", description = "Prints a Markdown table (the one in docs/configuration.md).")
  boolean markdown;

  @Override
  public Integer call() {
    PrintWriter out = spec.commandLine().getOut();
    List<List<String>> rows = rows();
    if (markdown) {
      out.println(markdownRow(HEADERS));
      out.println("|" + "---|".repeat(HEADERS.size()));
      rows.forEach(r -> out.println(markdownRow(r)));
    } else {
      TextTable.render("", HEADERS, rows).forEach(out::println);
    }
    out.flush();
    return TideCli.EXIT_OK;
  }

  /** One row per key, in declaration order. */
  static List<List<String>> rows() {
    List<List<String>> rows = new ArrayList<>();
    for (ProcessOptions.Key k : ProcessOptions.catalog()) {
      ConfigOption<?> o = k.option();
      String def = o.defaultText().isEmpty() ? "(empty)" : o.defaultText();
      rows.add(List.of(o.key(), def, o.unit().isEmpty() ? "-" : o.unit(),
          k.roles().stream().map(Object::toString).collect(Collectors.joining(",")), o.ruleText(), o.description()));
    }
    return rows;
  }

  private static String markdownRow(List<String> cells) {
    return cells.stream().map(c -> c.replace("|", "\\|")).collect(Collectors.joining(" | ", "| ", " |"));
  }
}
