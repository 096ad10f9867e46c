package dev.tide.cli.ctl;

import dev.tide.proto.admin.AdminServiceGrpc.AdminServiceBlockingStub;
import dev.tide.proto.admin.AutoscaleRequest;
import dev.tide.proto.admin.JobRequest;
import java.io.PrintWriter;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;

/** {@code tide ctl autoscale JOB [--enable ...|--disable]}: without a flag, what the autoscaler sees of the job. */
@Command(name = "autoscale", mixinStandardHelpOptions = true, sortOptions = false,
    description = {"Hands a job to the autoscaler (--enable), which rescales its fragments from their measured load, or takes it back"
        + " (--disable); the layout stays as it is. The setting is part of the job's intent.",
        "Without --enable or --disable it prints what the autoscaler sees of the job and its last decisions with their reasons."})
final class AutoscaleCommand extends AdminApiCommand {
  @Parameters(index = "0", paramLabel = "JOB", description = "The job, e.g. q5.")
  String job;

  static final class Mode {
    @Option(names = "--enable", required = true, description = "The autoscaler owns the job.")
    boolean enable;

    @Option(names = "--disable", required = true, description = "People own the job's shape again.")
    boolean disable;
  }

  @ArgGroup(exclusive = true, multiplicity = "0..1")
  Mode mode;

  @Option(names = "--min", paramLabel = "N", description = "Fewest actors of any fragment (default 1).")
  Integer min;

  @Option(names = "--max", paramLabel = "N", description = "Most actors of any fragment (default: the job's vnode count).")
  Integer max;

  @Option(names = "--target-utilization", paramLabel = "U", description = "Busy fraction to run at, in (0, 1] (default: meta's"
      + " autoscaler.target-utilization).")
  Double targetUtilization;

  @Override
  void validate() {
    if ((mode == null || mode.disable) && (min != null || max != null || targetUtilization != null)) {
      throw new ParameterException(spec.commandLine(), "--min, --max and --target-utilization go with --enable");
    }
    if ((min != null && min < 1) || (max != null && max < 1)) {
      throw new ParameterException(spec.commandLine(), "--min and --max must be at least 1 (got " + (min != null && min < 1 ? min : max) + ")");
    }
    if (targetUtilization != null && !(targetUtilization > 0 && targetUtilization <= 1)) {
      throw new ParameterException(spec.commandLine(), "--target-utilization " + targetUtilization + " must be above 0 and at most 1");
    }
  }

  @Override
  void run(AdminServiceBlockingStub admin, PrintWriter out) {
    if (mode == null) {
      CtlText.autoscale(job, admin.autoscaleShow(JobRequest.newBuilder().setJob(job).build())).forEach(out::println);
      return;
    }
    AutoscaleRequest.Builder r = AutoscaleRequest.newBuilder().setJob(job).setEnable(mode.enable);
    if (min != null) {
      r.setMin(min);
    }
    if (max != null) {
      r.setMax(max);
    }
    if (targetUtilization != null) {
      r.setTargetUtilization(targetUtilization);
    }
    String intent = admin.autoscale(r.build()).getIntent();
    out.println(mode.enable ? "job '" + job + "' is autoscaled: intent " + intent : "job '" + job + "' is no longer autoscaled: intent " + intent);
  }
}
