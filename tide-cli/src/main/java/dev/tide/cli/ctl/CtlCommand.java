package dev.tide.cli.ctl;

import dev.tide.cli.TideCli;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
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
        PauseCommand.class, ResumeCommand.class, AutoscaleCommand.class, WorkerCommand.class, StatusCommand.class, JobCommand.class, GroupCommand.class, TableCommand.class})
public final class CtlCommand implements Callable<Integer> {
  @Spec
  CommandSpec spec;

  @Override
  public Integer call() {
    return TideCli.missingSubcommand(spec);
  }
}
