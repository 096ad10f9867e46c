package dev.tide.cli.ctl;

import dev.tide.proto.admin.AdminServiceGrpc.AdminServiceBlockingStub;
import dev.tide.proto.admin.RescheduleJobRequest;
import java.io.PrintWriter;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code tide ctl reschedule JOB --plan ... [--dry-run]}: an explicit per-worker change of actors. */
@Command(name = "reschedule", mixinStandardHelpOptions = true, sortOptions = false,
    description = {
        "Adds and removes actors of fragments on given workers, online, and prints the diff.",
        "",
        "Example: --plan \"3:[1:-1,2:+1]\" migrates one actor of fragment 3 from worker 1 to worker 2;",
        "--plan \"3:[4:+2]\" adds two actors on worker 4. Fragments of a NO_SHUFFLE ensemble follow its root.",
        ""})
final class RescheduleCommand extends AdminApiCommand {
  @Parameters(index = "0", paramLabel = "JOB", description = "The job, e.g. q5.")
  String job;

  @Option(names = "--plan", required = true, paramLabel = "PLAN",
      description = "\"<fragment>:[<worker>:+n,<worker>:-m];<fragment>:[...]\" (fragment and worker ids from 'ctl fragments').")
  String plan;

  @Option(names = "--dry-run", description = "Print the diff without applying it.")
  boolean dryRun;

  @Override
  void run(AdminServiceBlockingStub admin, PrintWriter out) {
    RescheduleJobRequest req = RescheduleJobRequest.newBuilder().setJob(job).setPlan(plan).setDryRun(dryRun).build();
    CtlText.reschedule(job, admin.reschedule(req), dryRun, false).forEach(out::println);
  }
}
