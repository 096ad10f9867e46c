package dev.tide.cli;

import dev.tide.cluster.ComputeServer;
import dev.tide.cluster.ProcessOptions;
import dev.tide.common.config.Config;
import dev.tide.common.time.Clock;
import java.io.PrintWriter;
import java.util.HashMap;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code tide compute}: runs a compute node as a process until it is stopped. */
@Command(name = "compute", mixinStandardHelpOptions = true, sortOptions = false,
    description = {"Runs a compute node: registers with meta, runs the actors meta places on it, sends heartbeats.",
        "Prints 'compute ready worker=ID port=PORT' once registered."})
final class ComputeCommand implements Callable<Integer> {
  @Spec
  CommandSpec spec;

  @Mixin
  ProcessFlags process;

  @Option(names = "--meta", paramLabel = "HOST:PORT", description = "Meta's gRPC address (default 127.0.0.1:5690).")
  String meta;

  @Option(names = "--listen", paramLabel = "HOST:PORT", description = "Address of this node's services (default 127.0.0.1:0).")
  String listen;

  @Option(names = "--slots", paramLabel = "N", description = "Actors per fragment this node takes (default: the machine's"
      + " available processors).")
  Integer slots;

  @Option(names = "--resource-id", paramLabel = "ID", description = "The compute pool's resource this node was launched for"
      + " (the pool's provider sets it; not for nodes started by hand).")
  String resourceId;

  @Override
  public Integer call() throws InterruptedException {
    Map<String, String> flags = new HashMap<>();
    ProcessFlags.flag(flags, ProcessOptions.COMPUTE_META.key(), meta);
    ProcessFlags.flag(flags, ProcessOptions.COMPUTE_LISTEN.key(), listen);
    ProcessFlags.flag(flags, ProcessOptions.COMPUTE_SLOTS.key(), slots);
    ProcessFlags.flag(flags, ProcessOptions.COMPUTE_RESOURCE_ID.key(), resourceId);
    Config config = process.config(flags);
    ComputeServer server = ComputeServer.start(config, process.token(config), Clock.SYSTEM);
    Duration shutdown = config.get(ProcessOptions.COMPUTE_SHUTDOWN_TIMEOUT);
    GracefulStop.onTermSignal("compute", () -> server.shutdownGracefully(shutdown));
    Runtime.getRuntime().addShutdownHook(new Thread(server::close, "compute-shutdown"));
    PrintWriter out = spec.commandLine().getOut();
    out.println("compute ready worker=" + server.node().workerId() + " port=" + server.port());
    out.flush();
    server.awaitTermination();
    if (server.left()) {
      out.println("compute left: worker " + server.node().workerId() + " was drained and told to leave");
      out.flush();
    }
    return TideCli.EXIT_OK;
  }
}
