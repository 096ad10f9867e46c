package dev.tide.cli.ctl;

import dev.tide.proto.admin.AdminServiceGrpc.AdminServiceBlockingStub;
import java.io.PrintWriter;

/** A {@code tide ctl} command that calls only the admin service. */
abstract class AdminApiCommand extends AdminCommand {
  @Override
  final void run(AdminClient client, PrintWriter out) {
    run(client.admin(), out);
  }

  /** Makes the command's calls and prints its output. */
  abstract void run(AdminServiceBlockingStub admin, PrintWriter out);
}
