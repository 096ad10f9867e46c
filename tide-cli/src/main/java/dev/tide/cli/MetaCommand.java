package dev.tide.cli;

import dev.tide.cluster.MetaServer;
import dev.tide.cluster.ProcessOptions;
import dev.tide.common.config.Config;
import dev.tide.common.time.Clock;
import java.io.PrintWriter;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code tide meta}: runs meta as a process until it is stopped (SIGTERM or Ctrl-C). */
@Command(name = "meta", mixinStandardHelpOptions = true, sortOptions = false,
    description = {"Runs meta: the catalog, barriers, checkpoints, scaling; serves compute nodes, optimizers and tide ctl.",
        "Prints 'meta ready grpc=HOST:PORT http=PORT' once it serves."})
final class MetaCommand implements Callable<Integer> {
  @Spec
  CommandSpec spec;

  @Mixin
  ProcessFlags process;

  @Option(names = "--listen", paramLabel = "HOST:PORT", description = "gRPC address (default 127.0.0.1:5690; port 0: any free one).")
  String listen;

  @Option(names = "--http-port", paramLabel = "PORT", description = "HTTP port of /metrics and /api/status (default 5691; -1: off).")
  Integer httpPort;

  @Option(names = "--sql-port", paramLabel = "PORT", description = "SQL (PostgreSQL protocol) port (default 4566; 0: any free one; -1: off).")
  Integer sqlPort;

  @Option(names = "--store", paramLabel = "JDBC_URL",
      description = "Meta store: jdbc:sqlite:FILE (default <data-dir>/meta.db) or jdbc:postgresql://...")
  String store;

  @Override
  public Integer call() throws InterruptedException {
    Map<String, String> flags = new HashMap<>();
    ProcessFlags.flag(flags, ProcessOptions.META_LISTEN.key(), listen);
    ProcessFlags.flag(flags, ProcessOptions.META_HTTP_PORT.key(), httpPort);
    ProcessFlags.flag(flags, ProcessOptions.META_STORE.key(), store);
    ProcessFlags.flag(flags, dev.tide.sql.SqlOptions.PORT.key(), sqlPort);
    Config config = process.config(flags);
    try {
      dev.tide.cluster.ComputePoolRuntime.checkForMetaProcess(config);
    } catch (IllegalArgumentException e) {
      throw new picocli.CommandLine.ParameterException(spec.commandLine(), "Invalid configuration: " + e.getMessage());
    }
    MetaServer server = MetaServer.start(config, process.token(config), Clock.SYSTEM);
    // In-flight barriers are abandoned (their epochs replay after a restart); the store is closed.
    GracefulStop.onTermSignal("meta", () -> {
      server.close();
      return true;
    });
    Runtime.getRuntime().addShutdownHook(new Thread(server::close, "meta-shutdown"));
    PrintWriter out = spec.commandLine().getOut();
    out.println("meta ready grpc=" + config.get(ProcessOptions.META_LISTEN).replaceAll(":\\d+$", "") + ":" + server.grpcPort()
        + " http=" + server.httpPort() + " sql=" + server.sqlPort());
    out.flush();
    server.awaitTermination();
    return TideCli.EXIT_OK;
  }
}
