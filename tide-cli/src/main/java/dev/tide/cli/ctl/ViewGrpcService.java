package dev.tide.cli.ctl;

import dev.tide.cluster.CommittedViews;
import dev.tide.cluster.JobStates;
import dev.tide.proto.admin.JobSummary;
import dev.tide.proto.admin.JobsRequest;
import dev.tide.proto.admin.JobsResponse;
import dev.tide.proto.admin.TableName;
import dev.tide.proto.admin.TableNamesRequest;
import dev.tide.proto.admin.TableNamesResponse;
import dev.tide.common.hash.RowFingerprint;
import dev.tide.proto.admin.DigestRequest;
import dev.tide.proto.admin.DigestResponse;
import dev.tide.proto.admin.JobRequest;
import dev.tide.proto.admin.ProgressResponse;
import dev.tide.proto.admin.SourceProgress;
import dev.tide.proto.plan.JobDefinition;
import dev.tide.meta.Meta;
import java.util.function.Supplier;
import dev.tide.proto.admin.ScanRequest;
import dev.tide.proto.admin.ScanResponse;
import dev.tide.proto.admin.ScanRow;
import dev.tide.proto.admin.ViewServiceGrpc;
import dev.tide.proto.plan.TableCatalog;
import io.grpc.Status;
import io.grpc.stub.StreamObserver;
import java.util.List;

/** Serves the committed rows of a materialized view ({@code tide ctl scan}) and digests ({@code tide ctl digest}) from a running cluster. */
public final class ViewGrpcService extends ViewServiceGrpc.ViewServiceImplBase {
  private final Supplier<Meta> meta;
  private final CommittedViews views;

  public ViewGrpcService(Supplier<Meta> meta, CommittedViews views) {
    this.meta = meta;
    this.views = views;
  }

  @Override
  public void scan(ScanRequest req, StreamObserver<ScanResponse> out) {
    TableCatalog t = meta.get().view(req.getView()).orElse(null);
    if (t == null) {
      out.onError(Status.NOT_FOUND.withDescription("unknown materialized view '" + req.getView() + "'; views: "
          + meta.get().jobs().values().stream().flatMap(j -> j.getTablesList().stream()).filter(TableCatalog::getIsMv)
              .map(TableCatalog::getName).sorted().toList()).asRuntimeException());
      return;
    }
    List<Object[]> rows = views.scan(req.getView());
    ScanResponse.Builder r = ScanResponse.newBuilder().setTotalRows(rows.size());
    for (int c = 0; c < t.getVisibleColumns(); c++) {
      r.addColumns(t.getColumns(c).getName()).addColumnTypes(t.getColumns(c).getType().name());
    }
    int limit = req.getLimit() == 0 ? rows.size() : Math.min(rows.size(), req.getLimit());
    for (int i = 0; i < limit; i++) {
      ScanRow.Builder row = ScanRow.newBuilder();
      for (Object v : rows.get(i)) {
        row.addValues(String.valueOf(v));
      }
      r.addRows(row);
    }
    out.onNext(r.build());
    out.onCompleted();
  }

  @Override
  public void digest(DigestRequest req, StreamObserver<DigestResponse> out) {
    if (meta.get().digest(req.getName()).isEmpty()) {
      out.onError(Status.NOT_FOUND.withDescription("unknown digest '" + req.getName() + "'; digests: "
          + meta.get().jobs().values().stream().flatMap(j -> j.getTablesList().stream()).filter(TableCatalog::getIsDigest)
              .map(TableCatalog::getName).sorted().toList() + " (create one with: tide ctl job create QUERY --digest)")
          .asRuntimeException());
      return;
    }
    RowFingerprint f = views.digest(req.getName());
    out.onNext(DigestResponse.newBuilder().setRows(f.rows()).setSumA(f.sumA()).setSumB(f.sumB()).build());
    out.onCompleted();
  }

  @Override
  public void progress(JobRequest req, StreamObserver<ProgressResponse> out) {
    JobDefinition job = meta.get().jobs().get(req.getJob());
    if (job == null) {
      out.onError(Status.NOT_FOUND.withDescription("unknown job '" + req.getJob() + "'; jobs: " + meta.get().jobs().keySet())
          .asRuntimeException());
      return;
    }
    ProgressResponse.Builder r = ProgressResponse.newBuilder();
    for (CommittedViews.SourceProgress p : views.sourceProgress(job)) {
      r.addSources(SourceProgress.newBuilder().setTable(p.table()).setEmitted(p.emitted()).setTotal(p.total()));
    }
    out.onNext(r.build());
    out.onCompleted();
  }

  @Override
  public void jobs(JobsRequest req, StreamObserver<JobsResponse> out) {
    List<JobSummary> jobs = JobStates.summaries(meta.get(), views);
    if (!req.getJob().isEmpty()) {
      jobs = jobs.stream().filter(j -> j.getName().equals(req.getJob())).toList();
      if (jobs.isEmpty()) {
        out.onError(Status.NOT_FOUND.withDescription("unknown job '" + req.getJob() + "'; jobs: " + meta.get().jobs().keySet())
            .asRuntimeException());
        return;
      }
    }
    out.onNext(JobsResponse.newBuilder().addAllJobs(jobs).build());
    out.onCompleted();
  }

  @Override
  public void tableNames(TableNamesRequest req, StreamObserver<TableNamesResponse> out) {
    java.util.TreeMap<Integer, TableName> byId = new java.util.TreeMap<>();
    for (JobDefinition job : meta.get().jobs().values()) {
      for (TableCatalog t : job.getTablesList()) {
        byId.put(t.getTableId(), TableName.newBuilder().setTableId(t.getTableId()).setJob(job.getName()).setName(t.getName())
            .setFragmentId(t.getFragmentId()).build());
      }
    }
    out.onNext(TableNamesResponse.newBuilder().addAllTables(byId.values()).build());
    out.onCompleted();
  }
}
