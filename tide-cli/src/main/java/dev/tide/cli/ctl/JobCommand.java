package dev.tide.cli.ctl;

import dev.tide.cli.TideCli;
import dev.tide.cli.text.TextTable;
import dev.tide.cluster.JobGrpcService;
import dev.tide.proto.admin.JobSummary;
import dev.tide.proto.admin.JobsRequest;
import dev.tide.proto.admin.JobsResponse;
import dev.tide.proto.admin.ProgressResponse;
import dev.tide.proto.admin.SourceProgress;
import java.util.ArrayList;
import java.util.List;
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
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code tide ctl job create|drop|list|status}: starts a built-in Nexmark query as a job, drops one, shows their states. */
@Command(name = "job", mixinStandardHelpOptions = true, description = "Creates, drops and lists jobs.",
    subcommands = {JobCommand.Create.class, JobCommand.Drop.class, JobCommand.ListJobs.class, JobCommand.Status.class})
final class JobCommand implements Callable<Integer> {
  @Spec
  CommandSpec spec;

  @Override
  public Integer call() {
    return TideCli.missingSubcommand(spec);
  }

  @Command(name = "create", mixinStandardHelpOptions = true, sortOptions = false,
      description = "Starts a Nexmark query (q0..q22 but q13: the shipped nexmark/qN.sql) as a job, its view named like the job (--name, default the query's); or kafka-bids: bids read from a Kafka topic, counted per auction into the view kafka_bids and optionally a sink (docs/connectors.md).")
  static final class Create extends AdminCommand {
    @Parameters(index = "0", paramLabel = "QUERY", description = "q0 .. q22 (not q13) or kafka-bids.")
    String query;

    @Option(names = "--name", paramLabel = "NAME",
        description = "Name of the job and of its view or digest (default: the query's), so one query can run several times.")
    String name;

    @Option(names = "--source", paramLabel = "KEY=VALUE",
        description = "Source option, e.g. --source events=1000000 --source rate=10000; for kafka-bids --source bootstrap.servers=host:9092 --source topic=bids (repeatable).")
    Map<String, String> source = new LinkedHashMap<>();

    @Option(names = "--sink", paramLabel = "KEY=VALUE",
        description = "kafka-bids only: a sink of the counts, --sink connector=kafka --sink bootstrap.servers=host:9092 --sink topic=counts --sink mode=upsert, or connector=postgres with url and table (repeatable).")
    Map<String, String> sink = new LinkedHashMap<>();

    @Option(names = "--digest", description = "End in a digest sink named like the query (read it with 'tide ctl digest'), not a view.")
    boolean digest;

    @Override
    void validate() {
      if (name != null && !JobGrpcService.JOB_NAME.matcher(name).matches()) {
        throw new ParameterException(spec.commandLine(), "Invalid value for option '--name': '" + name + "' " + JobGrpcService.JOB_NAME_RULE);
      }
    }

    @Override
    void run(AdminClient client, PrintWriter out) {
      CreateJobResponse r = client.jobs().create(CreateJobRequest.newBuilder().setQuery(query).putAllSourceOptions(source)
          .putAllSinkOptions(sink)
          .setDigest(digest).setName(name == null ? "" : name).build());
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

  @Command(name = "list", mixinStandardHelpOptions = true,
      description = "Lists the jobs with their state: running, paused, or finished (every source exhausted, its last epoch committed).")
  static final class ListJobs extends AdminCommand {
    @Override
    void run(AdminClient client, PrintWriter out) {
      JobsResponse r = client.views().jobs(JobsRequest.getDefaultInstance());
      out.println("jobs: " + r.getJobsCount());
      if (r.getJobsCount() > 0) {
        List<List<String>> rows = new ArrayList<>();
        for (JobSummary j : r.getJobsList()) {
          rows.add(List.of(j.getName(), String.valueOf(j.getJobId()), j.getState(), j.getIntent(), String.valueOf(j.getFragments()),
              String.valueOf(j.getActors())));
        }
        TextTable.render("  ", List.of("job", "id", "state", "intent", "fragments", "actors"), rows).forEach(out::println);
      }
    }
  }

  @Command(name = "status", mixinStandardHelpOptions = true,
      description = "Shows a job's state and the committed progress of its sources.")
  static final class Status extends AdminCommand {
    @Parameters(index = "0", paramLabel = "JOB")
    String job;

    @Override
    void run(AdminClient client, PrintWriter out) {
      JobSummary j = client.views().jobs(JobsRequest.newBuilder().setJob(job).build()).getJobs(0);
      ProgressResponse p = client.views().progress(JobRequest.newBuilder().setJob(job).build());
      out.println("job '" + j.getName() + "' (id " + j.getJobId() + "): " + j.getState() + "; " + j.getFragments() + " fragments, "
          + j.getActors() + " actors, intent " + j.getIntent());
      for (SourceProgress s : p.getSourcesList()) {
        out.println("  source " + s.getTable() + ": " + s.getEmitted() + " of " + (s.getTotal() < 0 ? "unbounded" : s.getTotal())
            + " events committed");
      }
    }
  }
}
