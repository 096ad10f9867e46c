package dev.tide.cli.ctl;

import dev.tide.cli.TideCli;
import dev.tide.meta.admin.AdminGrpcService;
import dev.tide.proto.admin.AdminServiceGrpc.AdminServiceBlockingStub;
import dev.tide.proto.admin.WorkerAddRequest;
import dev.tide.proto.admin.WorkerAddResponse;
import dev.tide.proto.admin.WorkerDrainRequest;
import java.io.PrintWriter;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code tide ctl worker add|drain}: cluster membership. */
@Command(name = "worker", mixinStandardHelpOptions = true, description = "Adds or drains compute nodes.",
    subcommands = {WorkerCommand.Add.class, WorkerCommand.Drain.class})
final class WorkerCommand implements Callable<Integer> {
  @Spec
  CommandSpec spec;

  @Override
  public Integer call() {
    return TideCli.missingSubcommand(spec);
  }

  @Command(name = "add", mixinStandardHelpOptions = true, sortOptions = false,
      description = "Starts a compute node (where meta can start one, e.g. in the playground); adaptive jobs spread onto it.")
  static final class Add extends AdminApiCommand {
    @Option(names = "--slots", paramLabel = "N", description = "Actor slots of the new node (default: the same as the others).")
    Integer slots;

    @Override
    void validate() {
      if (slots != null && (slots < 1 || slots > AdminGrpcService.MAX_SLOTS)) {
        throw new ParameterException(spec.commandLine(),
            "Invalid value for option '--slots': '" + slots + "' must be between 1 and " + AdminGrpcService.MAX_SLOTS);
      }
    }

    @Override
    void run(AdminServiceBlockingStub admin, PrintWriter out) {
      WorkerAddResponse r = admin.workerAdd(WorkerAddRequest.newBuilder().setSlots(slots == null ? 0 : slots).build());
      out.println("worker " + r.getWorkerId() + " added with " + r.getSlots() + (r.getSlots() == 1 ? " slot" : " slots")
          + "; adaptive jobs spread onto it after the settle delay");
    }
  }

  @Command(name = "drain", mixinStandardHelpOptions = true, sortOptions = false,
      description = "Drains a compute node: its actors migrate to the others, then it leaves the cluster.")
  static final class Drain extends AdminApiCommand {
    @Parameters(index = "0", paramLabel = "ID", description = "The worker id, from 'ctl cluster'.")
    int workerId;

    @Override
    void validate() {
      if (workerId < 0) {
        throw new ParameterException(spec.commandLine(), "Invalid value for parameter 'ID': '" + workerId + "' must be a worker id >= 0");
      }
    }

    @Override
    void run(AdminServiceBlockingStub admin, PrintWriter out) {
      int actors = admin.workerDrain(WorkerDrainRequest.newBuilder().setWorkerId(workerId).build()).getActors();
      out.println("worker " + workerId + " draining: its " + actors + (actors == 1 ? " actor migrates" : " actors migrate")
          + " to the other workers, then it leaves the cluster (see 'tide ctl cluster')");
    }
  }
}
