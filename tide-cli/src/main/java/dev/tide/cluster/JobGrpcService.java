package dev.tide.cluster;

import dev.tide.common.config.Config;
import dev.tide.meta.Meta;
import dev.tide.meta.MetaOptions;
import dev.tide.proto.admin.CreateJobRequest;
import dev.tide.proto.admin.CreateJobResponse;
import dev.tide.proto.admin.DropJobResponse;
import dev.tide.proto.admin.JobRequest;
import dev.tide.proto.admin.JobServiceGrpc;
import dev.tide.proto.plan.JobDefinition;
import dev.tide.proto.plan.Plan;
import dev.tide.proto.plan.TableCatalog;
import dev.tide.stream.plan.JobCompiler;
import dev.tide.sql.NexmarkJobs;
import io.grpc.Status;
import io.grpc.stub.StreamObserver;
import java.util.function.Supplier;

/** Creates and drops jobs of the built-in Nexmark queries: plans are compiled where meta runs. */
public final class JobGrpcService extends JobServiceGrpc.JobServiceImplBase {
  /** A job's name, also its view's or digest's: a letter, then letters, digits and underscores. */
  public static final java.util.regex.Pattern JOB_NAME = java.util.regex.Pattern.compile("[A-Za-z][A-Za-z0-9_]{0,62}");
  public static final String JOB_NAME_RULE = "must be a letter followed by up to 62 letters, digits or underscores";

  private final Supplier<Meta> meta;
  private final Config config;

  public JobGrpcService(Supplier<Meta> meta, Config config) {
    this.meta = meta;
    this.config = config;
  }

  /** Compiles {@code plan} with fresh job and table ids and starts it; returns its definition. */
  public static JobDefinition submit(Meta meta, Config config, Plan plan) {
    dev.tide.meta.core.Command.JobIds ids = meta.allocateJobIds();
    JobDefinition def = JobCompiler.compile(plan, ids.jobId(), config.get(MetaOptions.VNODE_COUNT), ids.tableIdBase());
    meta.createJob(def);
    return def;
  }

  @Override
  public void create(CreateJobRequest req, StreamObserver<CreateJobResponse> out) {
    boolean connector = ConnectorJobs.handles(req.getQuery());
    if (connector && !req.getName().isEmpty()) {
      out.onError(Status.INVALID_ARGUMENT.withDescription("create job '" + req.getName() + "' refused: --name is not supported for "
          + req.getQuery() + " (its job and view are " + req.getQuery().replace('-', '_') + "); leave --name out").asRuntimeException());
      return;
    }
    String name = req.getName().isEmpty() ? req.getQuery().replace('-', '_') : req.getName();
    String what = "create job '" + name + "'" + (name.equals(req.getQuery()) ? "" : " (query " + req.getQuery() + ")");
    if (!JOB_NAME.matcher(name).matches()) {
      out.onError(Status.INVALID_ARGUMENT.withDescription(what + " refused: a job name " + JOB_NAME_RULE).asRuntimeException());
      return;
    }
    if (meta.get().jobs().containsKey(name)) {
      out.onError(Status.ALREADY_EXISTS.withDescription(what + " refused: a job named '" + name + "' already exists; drop it"
          + " ('tide ctl job drop " + name + "') or name the new one ('tide ctl job create " + req.getQuery() + " --name NAME')")
          .asRuntimeException());
      return;
    }
    JobDefinition def;
    try {
      def = submit(meta.get(), config, connector
          ? ConnectorJobs.plan(req.getQuery(), req.getSourceOptionsMap(), req.getSinkOptionsMap())
          : NexmarkJobs.plan(req.getQuery(), name, req.getSourceOptionsMap(),
              req.getDigest() ? NexmarkJobs.Terminal.DIGEST : NexmarkJobs.Terminal.MATERIALIZE));
    } catch (IllegalArgumentException e) {
      out.onError(Status.INVALID_ARGUMENT.withDescription(what + " refused: " + e.getMessage()).asRuntimeException());
      return;
    } catch (IllegalStateException e) {
      out.onError(Status.FAILED_PRECONDITION.withDescription(e.getMessage()).asRuntimeException());
      return;
    }
    CreateJobResponse.Builder r = CreateJobResponse.newBuilder().setJob(def.getName()).setJobId(def.getJobId())
        .setActors(meta.get().layout(def.getName()).allActors().size());
    def.getTablesList().stream().filter(TableCatalog::getIsMv).map(TableCatalog::getName).forEach(r::addViews);
    def.getTablesList().stream().filter(TableCatalog::getIsDigest).map(TableCatalog::getName).forEach(r::addDigests);
    out.onNext(r.build());
    out.onCompleted();
  }

  @Override
  public void drop(JobRequest req, StreamObserver<DropJobResponse> out) {
    try {
      meta.get().dropJob(req.getJob());
    } catch (IllegalArgumentException e) {
      out.onError(Status.INVALID_ARGUMENT.withDescription(e.getMessage()).asRuntimeException());
      return;
    } catch (IllegalStateException e) {
      out.onError(Status.FAILED_PRECONDITION.withDescription(e.getMessage()).asRuntimeException());
      return;
    }
    out.onNext(DropJobResponse.newBuilder().setJob(req.getJob()).build());
    out.onCompleted();
  }
}
