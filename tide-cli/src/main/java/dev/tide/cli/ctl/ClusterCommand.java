package dev.tide.cli.ctl;

import dev.tide.proto.admin.AdminServiceGrpc.AdminServiceBlockingStub;
import dev.tide.proto.admin.ClusterRequest;
import java.io.PrintWriter;
import picocli.CommandLine.Command;

/** {@code tide ctl cluster}: workers with their slots and actors, and jobs. */
@Command(name = "cluster", mixinStandardHelpOptions = true, sortOptions = false,
    description = "Shows the workers (slots, actors, draining) and the jobs (intent, actors, paused).")
final class ClusterCommand extends AdminApiCommand {
  @Override
  void run(AdminServiceBlockingStub admin, PrintWriter out) {
    CtlText.cluster(admin.cluster(ClusterRequest.getDefaultInstance())).forEach(out::println);
  }
}
