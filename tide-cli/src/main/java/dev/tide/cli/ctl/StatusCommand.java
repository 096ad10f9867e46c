package dev.tide.cli.ctl;

import dev.tide.proto.admin.AdminServiceGrpc.AdminServiceBlockingStub;
import dev.tide.proto.admin.StatusRequest;
import java.io.PrintWriter;
import picocli.CommandLine.Command;

/** {@code tide ctl status}: the barrier pipeline. */
@Command(name = "status", mixinStandardHelpOptions = true, sortOptions = false,
    description = "Shows the committed epoch, barrier latency, in-flight barriers, workers, jobs and recoveries.")
final class StatusCommand extends AdminCommand {
  @Override
  void run(AdminServiceBlockingStub admin, PrintWriter out) {
    CtlText.status(admin.status(StatusRequest.getDefaultInstance())).forEach(out::println);
  }
}
