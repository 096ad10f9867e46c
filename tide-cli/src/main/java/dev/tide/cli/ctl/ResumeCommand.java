package dev.tide.cli.ctl;

import dev.tide.proto.admin.AdminServiceGrpc.AdminServiceBlockingStub;
import dev.tide.proto.admin.JobRequest;
import java.io.PrintWriter;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/** {@code tide ctl resume JOB}. */
@Command(name = "resume", mixinStandardHelpOptions = true, sortOptions = false,
    description = "Resumes a paused job's sources at the next barrier.")
final class ResumeCommand extends AdminApiCommand {
  @Parameters(index = "0", paramLabel = "JOB", description = "The job, e.g. q5.")
  String job;

  @Override
  void run(AdminServiceBlockingStub admin, PrintWriter out) {
    boolean changed = admin.resume(JobRequest.newBuilder().setJob(job).build()).getChanged();
    out.println(changed ? "job '" + job + "' resumed: its sources continue at the next barrier" : "job '" + job + "' was not paused");
  }
}
