package dev.tide.cli.ctl;

import dev.tide.cli.TideCli;
import dev.tide.proto.admin.CreateJobRequest;
import dev.tide.proto.admin.CreateJobResponse;
import dev.tide.proto.admin.JobRequest;
import java.io.PrintWriter;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code tide ctl job create|drop}: starts a built-in Nexmark query as a job, or drops one. */
@Command(name = "job", mixinStandardHelpOptions = true, description = "Creates or drops jobs.",
    subcommands = {JobCommand.Create.class, JobCommand.Drop.class})
final class JobCommand implements Callable<Integer> {
  @Spec
  CommandSpec spec;

  @Override
  public Integer call() {
    return TideCli.missingSubcommand(spec);
  }

  @Command(name = "create", mixinStandardHelpOptions = true, sortOptions = false,
      description = "Starts a Nexmark query (q0..q8) as a job, its view named like the query; or kafka-bids: bids read from a Kafka topic, counted per auction into the view kafka_bids and optionally a sink (docs/connectors.md).")
  static final class Create extends AdminCommand {
    @Parameters(index = "0", paramLabel = "QUERY", description = "q0, q1, q2, q3, q4, q5, q7, q8 or kafka-bids.")
    String query;

    @Option(names = "--source", paramLabel = "KEY=VALUE",
        description = "Source option, e.g. --source events=1000000 --source rate=10000; for kafka-bids --source bootstrap.servers=host:9092 --source topic=bids (repeatable).")
    Map<String, String> source = new LinkedHashMap<>();

    @Option(names = "--sink", paramLabel = "KEY=VALUE",
        description = "kafka-bids only: a sink of the counts, --sink connector=kafka --sink bootstrap.servers=host:9092 --sink topic=counts --sink mode=upsert, or connector=postgres with url and table (repeatable).")
    Map<String, String> sink = new LinkedHashMap<>();

    @Option(names = "--digest", description = "End in a digest sink named like the query (read it with 'tide ctl digest'), not a view.")
    boolean digest;

    @Override
    void run(AdminClient client, PrintWriter out) {
      CreateJobResponse r = client.jobs().create(CreateJobRequest.newBuilder().setQuery(query).putAllSourceOptions(source)
          .putAllSinkOptions(sink)
          .setDigest(digest).build());
      out.println("job '" + r.getJob() + "' (id " + r.getJobId() + ") created with " + r.getActors() + " actors; "
          + (digest ? "digests: " + String.join(", ", r.getDigestsList()) : "views: " + String.join(", ", r.getViewsList())));
    }
  }

  @Command(name = "drop", mixinStandardHelpOptions = true, description = "Stops a job at the next barrier and forgets it.")
  static final class Drop extends AdminCommand {
    @Parameters(index = "0", paramLabel = "JOB")
    String job;

    @Override
    void run(AdminClient client, PrintWriter out) {
      out.println("job '" + client.jobs().drop(JobRequest.newBuilder().setJob(job).build()).getJob() + "' dropped");
    }
  }
}
