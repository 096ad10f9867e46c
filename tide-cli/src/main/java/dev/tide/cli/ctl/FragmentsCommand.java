package dev.tide.cli.ctl;

import dev.tide.proto.admin.AdminServiceGrpc.AdminServiceBlockingStub;
import dev.tide.proto.admin.FragmentsRequest;
import java.io.PrintWriter;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code tide ctl fragments JOB}: each fragment's actors with their workers and vnode ranges. */
@Command(name = "fragments", mixinStandardHelpOptions = true, sortOptions = false,
    description = "Shows the fragments of a job: kind, ensemble, and per actor its worker and vnode ranges (splits of a source).")
final class FragmentsCommand extends AdminApiCommand {
  @Parameters(index = "0", paramLabel = "JOB", description = "The job, e.g. q5.")
  String job;

  @Option(names = "--stats", description = "Also each fragment's load over the last 30 s of committed epochs: rows/s in and out, busy,"
      + " backpressure, rows per busy actor-second, a source's backlog.")
  boolean stats;

  @Override
  void run(AdminServiceBlockingStub admin, PrintWriter out) {
    CtlText.fragments(admin.fragments(FragmentsRequest.newBuilder().setJob(job).setStats(stats).build())).forEach(out::println);
  }
}
