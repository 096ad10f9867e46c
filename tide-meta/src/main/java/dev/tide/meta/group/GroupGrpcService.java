package dev.tide.meta.group;

import dev.tide.optimizer.dra.GroupMetrics;
import dev.tide.optimizer.group.GroupDefinition;
import dev.tide.optimizer.keeper.GroupKeepers;
import dev.tide.optimizer.keeper.GroupView;
import dev.tide.optimizer.keeper.KeeperAction;
import dev.tide.optimizer.keeper.ResourceRecord;
import dev.tide.proto.group.CreateGroupRequest;
import dev.tide.proto.group.DeleteGroupResponse;
import dev.tide.proto.group.GroupMetricsView;
import dev.tide.proto.group.GroupRequest;
import dev.tide.proto.group.GroupServiceGrpc;
import dev.tide.proto.group.KeeperActionView;
import dev.tide.proto.group.ListGroupsRequest;
import dev.tide.proto.group.ListGroupsResponse;
import dev.tide.proto.group.ResourceView;
import dev.tide.proto.group.UpdateGroupRequest;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.StreamObserver;
import java.util.Objects;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The optimizer-group API ({@code tide ctl group}) over {@link GroupKeepers}, which validates and
 * applies. Errors: an unknown group on show or delete is NOT_FOUND, creating an existing one
 * ALREADY_EXISTS, other {@link IllegalArgumentException}s INVALID_ARGUMENT and
 * {@link IllegalStateException}s FAILED_PRECONDITION; the description is the refusal's one line.
 *
 * <p>Thread-safety: handlers run on gRPC threads; {@link GroupKeepers} serializes them.
 */
public final class GroupGrpcService extends GroupServiceGrpc.GroupServiceImplBase {
  private static final Logger LOG = LoggerFactory.getLogger(GroupGrpcService.class);

  private final GroupKeepers groups;

  public GroupGrpcService(GroupKeepers groups) {
    this.groups = Objects.requireNonNull(groups, "groups");
  }

  @Override
  public void create(CreateGroupRequest req, StreamObserver<dev.tide.proto.group.GroupView> out) {
    answer(out, "create of optimizer group '" + req.getName() + "'", () -> {
      if (groups.show(req.getName()).isPresent()) {
        throw Status.ALREADY_EXISTS.withDescription("create of optimizer group '" + req.getName()
            + "' refused: the group exists; update it, or delete it first").asRuntimeException();
      }
      return view(groups.create(GroupDefinition.of(req.getName(), req.getProvider(), req.getPropertiesMap())));
    });
  }

  @Override
  public void update(UpdateGroupRequest req, StreamObserver<dev.tide.proto.group.GroupView> out) {
    answer(out, "update of optimizer group '" + req.getName() + "'",
        () -> view(groups.update(req.getName(), req.getSetMap(), req.getUnsetList())));
  }

  @Override
  public void delete(GroupRequest req, StreamObserver<DeleteGroupResponse> out) {
    answer(out, "delete of optimizer group '" + req.getName() + "'", () -> {
      if (!groups.delete(req.getName())) {
        throw notFound("delete", req.getName());
      }
      return DeleteGroupResponse.getDefaultInstance();
    });
  }

  @Override
  public void list(ListGroupsRequest req, StreamObserver<ListGroupsResponse> out) {
    answer(out, "list of optimizer groups", () -> {
      ListGroupsResponse.Builder b = ListGroupsResponse.newBuilder().addAllProviders(groups.providers());
      groups.list().forEach(g -> b.addGroups(view(g)));
      return b.build();
    });
  }

  @Override
  public void show(GroupRequest req, StreamObserver<dev.tide.proto.group.GroupView> out) {
    answer(out, "show of optimizer group '" + req.getName() + "'",
        () -> view(groups.show(req.getName()).orElseThrow(() -> notFound("show", req.getName()))));
  }

  private StatusRuntimeException notFound(String op, String name) {
    return Status.NOT_FOUND.withDescription(op + " of optimizer group '" + name + "' refused: no such group (groups: "
        + groups.list().stream().map(GroupView::name).toList() + ")").asRuntimeException();
  }

  /** The API form of a group (or pool) view. */
  public static dev.tide.proto.group.GroupView view(GroupView g) {
    GroupMetrics m = g.metrics();
    dev.tide.proto.group.GroupView.Builder b = dev.tide.proto.group.GroupView.newBuilder()
        .setName(g.name())
        .setProvider(g.definition().provider())
        .putAllProperties(g.definition().properties())
        .setDraEnabled(g.draEnabled())
        .setConfigInvalid(g.configInvalid().orElse(""))
        .setMetrics(GroupMetricsView.newBuilder()
            .setIdleInstances(m.idleInstances()).setConfigInvalid(m.configInvalid()).setDrainingInstances(m.drainingInstances())
            .setEffectiveThreads(m.effectiveThreads()).setBacklogDurationMs(m.backlogDurationMs())
            .setScaleUpRounds(m.scaleUpRounds()).setScaleDownStarts(m.scaleDownStarts())
            .setPendingTasks(m.pendingTasks()).setExecutingTasks(m.executingTasks())
            .setPlanningTables(m.planningTables()).setPendingTables(m.pendingTables()).setExecutingTables(m.executingTables())
            .setIdleTables(m.idleTables()).setCommittingTables(m.committingTables())
            .setInstances(m.instances()).setThreads(m.threads()))
        .setLastDecision(g.lastDecision())
        .setAtMs(g.atMs());
    g.nextEvaluationMs().ifPresent(b::setNextEvaluationMs);
    for (KeeperAction a : g.recentActions()) {
      b.addRecentActions(KeeperActionView.newBuilder().setAtMs(a.atMs()).setReason(a.reason()));
    }
    for (ResourceRecord r : g.resources()) {
      b.addResources(ResourceView.newBuilder().setResourceId(r.resourceId()).setThreads(r.threads()).setRequestedAtMs(r.requestedAtMs()));
    }
    return b.build();
  }

  private static <T> void answer(StreamObserver<T> out, String op, Supplier<T> work) {
    T reply;
    try {
      reply = work.get();
    } catch (StatusRuntimeException e) {
      out.onError(e);
      return;
    } catch (IllegalArgumentException e) {
      out.onError(Status.INVALID_ARGUMENT.withDescription(message(op, e)).asRuntimeException());
      return;
    } catch (IllegalStateException e) {
      out.onError(Status.FAILED_PRECONDITION.withDescription(message(op, e)).asRuntimeException());
      return;
    } catch (RuntimeException e) {
      LOG.warn("{} failed", op, e);
      out.onError(Status.INTERNAL.withDescription(op + " failed: " + e).asRuntimeException());
      return;
    }
    out.onNext(reply);
    out.onCompleted();
  }

  private static String message(String op, RuntimeException e) {
    return e.getMessage() == null ? op + " failed: " + e.getClass().getSimpleName() : e.getMessage();
  }
}
