package dev.tide.cli.ctl;

import dev.tide.cli.TideCli;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code tide ctl}: the command-line client of meta's admin API. */
@Command(name = "ctl", mixinStandardHelpOptions = true,
    description = {
        "Inspects and rescales a running cluster through meta's admin API.",
        "",
        "Every subcommand takes --meta HOST:PORT (default " + MetaAddress.DEFAULT + ", where './tide playground' serves it).",
        "Exit codes: 0 done, 1 refused by meta or meta unreachable (one line on stderr), 2 bad usage.",
        ""},
    subcommands = {ClusterCommand.class, FragmentsCommand.class, ScanCommand.class, DigestCommand.class, RescheduleCommand.class, ScaleCommand.class,
        PauseCommand.class, ResumeCommand.class, AutoscaleCommand.class, WorkerCommand.class, StatusCommand.class, JobCommand.class, GroupCommand.class, TableCommand.class,
        PoolCommand.class})
public final class CtlCommand implements Callable<Integer> {
  @Spec
  CommandSpec spec;

  @Option(names = "--shell", description = {"Reads ctl commands from standard input, one a line (e.g. 'status --json'),"
      + " and runs them in this process over one connection per meta address: no JVM start per command.",
      "Blank lines and lines starting with # are skipped. Exit code: the last failed command's, else 0."})
  boolean shell;

  @Override
  public Integer call() throws IOException {
    if (!shell) {
      return TideCli.missingSubcommand(spec);
    }
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    boolean prompt = System.console() != null;
    int[] exit = {TideCli.EXIT_OK};
    AdminClient.sharingChannels(() -> {
      try {
        for (String line = read(in, out, prompt); line != null; line = read(in, out, prompt)) {
          String trimmed = line.strip();
          if (trimmed.isEmpty() || trimmed.startsWith("#")) {
            continue;
          }
          List<String> args = new ArrayList<>(List.of("ctl"));
          args.addAll(List.of(trimmed.split("\\s+")));
          int code = TideCli.run(out, err, args.toArray(String[]::new));
          if (code != TideCli.EXIT_OK) {
            exit[0] = code;
          }
        }
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    });
    return exit[0];
  }

  private static String read(BufferedReader in, PrintWriter out, boolean prompt) throws IOException {
    if (prompt) {
      out.print("tide ctl> ");
      out.flush();
    }
    return in.readLine();
  }
}
