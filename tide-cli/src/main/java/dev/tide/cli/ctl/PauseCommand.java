package dev.tide.cli.ctl;

import dev.tide.proto.admin.AdminServiceGrpc.AdminServiceBlockingStub;
import dev.tide.proto.admin.JobRequest;
import java.io.PrintWriter;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/** {@code tide ctl pause JOB}. */
@Command(name = "pause", mixinStandardHelpOptions = true, sortOptions = false,
    description = "Pauses a job's sources at the next barrier; barriers (and checkpoints) keep flowing.")
final class PauseCommand extends AdminApiCommand {
  @Parameters(index = "0", paramLabel = "JOB", description = "The job, e.g. q5.")
  String job;

  @Override
  void run(AdminServiceBlockingStub admin, PrintWriter out) {
    boolean changed = admin.pause(JobRequest.newBuilder().setJob(job).build()).getChanged();
    out.println(changed ? "job '" + job + "' paused: its sources stop at the next barrier" : "job '" + job + "' was already paused");
  }
}
