package dev.tide.meta.group;

import dev.tide.meta.optimize.OptimizingService;
import dev.tide.meta.optimize.TableInfo;
import dev.tide.optimizer.keeper.GroupKeepers;
import dev.tide.proto.group.ListTablesRequest;
import dev.tide.proto.group.ListTablesResponse;
import dev.tide.proto.group.TableServiceGrpc;
import dev.tide.proto.group.TableView;
import dev.tide.proto.group.UpdateTableRequest;
import io.grpc.Status;
import io.grpc.stub.StreamObserver;
import java.util.NoSuchElementException;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The table API ({@code tide ctl table}): which optimizer group compacts a table and its quota. An
 * unknown table is NOT_FOUND, a bad property or an unknown group INVALID_ARGUMENT; the description is
 * the refusal's one line, and a refusal changes nothing.
 *
 * <p>Thread-safety: handlers run on gRPC threads; {@link OptimizingService} serializes updates.
 */
public final class TableGrpcService extends TableServiceGrpc.TableServiceImplBase {
  private static final Logger LOG = LoggerFactory.getLogger(TableGrpcService.class);

  private final OptimizingService optimizing;
  private final GroupKeepers groups;

  public TableGrpcService(OptimizingService optimizing, GroupKeepers groups) {
    this.optimizing = Objects.requireNonNull(optimizing, "optimizing");
    this.groups = Objects.requireNonNull(groups, "groups");
  }

  @Override
  public void update(UpdateTableRequest req, StreamObserver<TableView> out) {
    TableInfo t;
    try {
      t = optimizing.updateTable(req.getTableId(), req.getSetMap(), req.getUnsetList(), g -> groups.show(g).isPresent());
    } catch (NoSuchElementException e) {
      out.onError(Status.NOT_FOUND.withDescription(e.getMessage()).asRuntimeException());
      return;
    } catch (IllegalArgumentException e) {
      out.onError(Status.INVALID_ARGUMENT.withDescription(e.getMessage()).asRuntimeException());
      return;
    } catch (RuntimeException e) {
      LOG.warn("update of table {} failed", req.getTableId(), e);
      out.onError(Status.INTERNAL.withDescription("update of table " + req.getTableId() + " failed: " + e).asRuntimeException());
      return;
    }
    out.onNext(view(t));
    out.onCompleted();
  }

  @Override
  public void list(ListTablesRequest req, StreamObserver<ListTablesResponse> out) {
    ListTablesResponse.Builder b = ListTablesResponse.newBuilder();
    for (TableInfo t : optimizing.tableInfos()) {
      if (req.getGroup().isEmpty() || req.getGroup().equals(t.settings().group())) {
        b.addTables(view(t));
      }
    }
    out.onNext(b.build());
    out.onCompleted();
  }

  static TableView view(TableInfo t) {
    return TableView.newBuilder().setTableId(t.tableId()).setGroup(t.settings().group()).setQuota(t.settings().quota())
        .putAllProperties(t.properties()).setStatus(t.status().name()).setL0Files(t.l0Files()).setL0Bytes(t.l0Bytes())
        .setPlannedTasks(t.plannedTasks()).setRunningTasks(t.runningTasks()).build();
  }
}
