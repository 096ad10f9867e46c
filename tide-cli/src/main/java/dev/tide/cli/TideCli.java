package dev.tide.cli;

import dev.tide.cli.ctl.CtlCommand;
import dev.tide.cli.logging.ShutdownLogs;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/**
 * The {@code tide} command line: {@code playground}, {@code ctl} and {@code bench}.
 *
 * <p>Exit codes: 0 success, 1 the command failed while running, 2 bad usage (unknown option, invalid
 * value). Every error is one line naming the option or the operation; stack traces appear only with
 * the environment variable {@code TIDE_DEBUG} set.
 */
@Command(name = "tide", mixinStandardHelpOptions = true, versionProvider = TideCli.Version.class,
    description = "Tide: an elastic stream processor.",
    subcommands = {PlaygroundCommand.class, MetaCommand.class, ComputeCommand.class, OptimizerCommand.class, OptionsCommand.class, CtlCommand.class,
        BenchCommand.class, CommandLine.HelpCommand.class})
public final class TideCli implements Callable<Integer> {
  public static final int EXIT_OK = 0;
  public static final int EXIT_FAILED = 1;
  public static final int EXIT_USAGE = 2;

  @Spec
  CommandSpec spec;

  public static void main(String[] args) {
    PrintWriter out = new PrintWriter(System.out, true, StandardCharsets.UTF_8);
    PrintWriter err = new PrintWriter(System.err, true, StandardCharsets.UTF_8);
    System.exit(run(out, err, args));
  }

  /** Runs one command line, printing to {@code out} and {@code err}; returns the exit code. */
  public static int run(PrintWriter out, PrintWriter err, String... args) {
    CommandLine cli = new CommandLine(new TideCli());
    cli.setOut(out);
    cli.setErr(err);
    cli.setParameterExceptionHandler(TideCli::usageError);
    cli.setExecutionExceptionHandler((e, cmd, parsed) -> failed(e, cmd));
    try {
      return cli.execute(args);
    } finally {
      ShutdownLogs.restore();
      out.flush();
      err.flush();
    }
  }

  @Override
  public Integer call() {
    return missingSubcommand(spec);
  }

  /** Prints a subcommand-less command's usage to stderr; a missing subcommand is a usage error. */
  public static int missingSubcommand(CommandSpec spec) {
    PrintWriter err = spec.commandLine().getErr();
    err.println("error: '" + spec.qualifiedName() + "' needs a subcommand");
    spec.commandLine().usage(err);
    return EXIT_USAGE;
  }

  private static int usageError(CommandLine.ParameterException e, String[] args) {
    CommandLine cmd = e.getCommandLine();
    cmd.getErr().println("error: " + e.getMessage() + " (see '" + cmd.getCommandSpec().qualifiedName() + " --help')");
    return EXIT_USAGE;
  }

  private static int failed(Exception e, CommandLine cmd) {
    PrintWriter err = cmd.getErr();
    String what = e.getMessage() == null ? e.getClass().getName() : e.getMessage();
    err.println("error: " + cmd.getCommandSpec().qualifiedName() + " failed: " + what);
    if (System.getenv("TIDE_DEBUG") != null) {
      e.printStackTrace(err);
    } else {
      err.println("(set TIDE_DEBUG=1 for the stack trace)");
    }
    return EXIT_FAILED;
  }

  /** The version from the jar manifest, or "development build" when run from classes. */
  static final class Version implements CommandLine.IVersionProvider {
    @Override
    public String[] getVersion() {
      String v = TideCli.class.getPackage().getImplementationVersion();
      return new String[] {"tide " + (v == null ? "(development build)" : v)};
    }
  }
}
