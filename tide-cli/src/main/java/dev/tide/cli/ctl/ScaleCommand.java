package dev.tide.cli.ctl;

import dev.tide.proto.admin.AdminServiceGrpc.AdminServiceBlockingStub;
import dev.tide.proto.admin.ScaleJobRequest;
import java.io.PrintWriter;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;

/** {@code tide ctl scale JOB --parallelism P [--fragment F] [--dry-run]}: a new parallelism intent. */
@Command(name = "scale", mixinStandardHelpOptions = true, sortOptions = false,
    description = {
        "Sets the parallelism intent of a job (or of one ensemble) and rescales it online; prints the diff.",
        "",
        "N: exactly N actors per fragment (at most the job's vnode count; fewer where a fragment allows fewer);",
        "adaptive: one per slot of the schedulable workers, following workers that join or drain;",
        "bounded(N): adaptive, at most N; ratio(R): adaptive, R (0 < R <= 1) of the slots.",
        ""})
final class ScaleCommand extends AdminApiCommand {
  @Parameters(index = "0", paramLabel = "JOB", description = "The job, e.g. q5.")
  String job;

  @Option(names = "--parallelism", required = true, paramLabel = "N|adaptive|bounded(N)|ratio(R)", description = "The new intent.")
  String parallelism;

  @Option(names = "--fragment", paramLabel = "ID",
      description = "Set the intent of this fragment's ensemble only (its root fragment) instead of the whole job's.")
  Integer fragment;

  @Option(names = "--dry-run", description = "Print the diff without applying it (the intent stays as it is).")
  boolean dryRun;

  @Override
  void validate() {
    if (fragment != null && fragment < 0) {
      throw new ParameterException(spec.commandLine(), "Invalid value for option '--fragment': '" + fragment + "' must be a fragment id >= 0");
    }
  }

  @Override
  void run(AdminServiceBlockingStub admin, PrintWriter out) {
    ScaleJobRequest.Builder req = ScaleJobRequest.newBuilder().setJob(job).setParallelism(parallelism).setDryRun(dryRun);
    if (fragment != null) {
      req.setFragment(fragment);
    }
    CtlText.reschedule(job, admin.scale(req.build()), dryRun, true).forEach(out::println);
  }
}
