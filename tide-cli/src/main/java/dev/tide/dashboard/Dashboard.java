package dev.tide.dashboard;

import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.MessageOrBuilder;
import com.google.protobuf.util.JsonFormat;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.tide.cluster.CommittedViews;
import dev.tide.common.auth.ClusterToken;
import dev.tide.meta.EventLog;
import dev.tide.meta.Meta;
import dev.tide.proto.admin.AdminServiceGrpc;
import dev.tide.proto.admin.ClusterRequest;
import dev.tide.proto.admin.FragmentsRequest;
import dev.tide.proto.admin.FragmentsResponse;
import dev.tide.proto.admin.JobRequest;
import dev.tide.proto.admin.ScaleJobRequest;
import dev.tide.proto.admin.ScanRequest;
import dev.tide.proto.admin.ScanResponse;
import dev.tide.proto.admin.StatusRequest;
import dev.tide.proto.admin.ViewServiceGrpc;
import dev.tide.proto.admin.WorkerDrainRequest;
import dev.tide.proto.group.GroupServiceGrpc;
import dev.tide.proto.group.GroupView;
import dev.tide.proto.group.KeeperActionView;
import dev.tide.proto.group.ListGroupsRequest;
import dev.tide.proto.group.ListGroupsResponse;
import dev.tide.proto.plan.Fragment;
import dev.tide.proto.plan.FragmentEdge;
import dev.tide.proto.plan.JobDefinition;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The web dashboard on meta's HTTP port: static pages under {@code /} (HTML and JS from this
 * jar, charts from the uPlot and ECharts WebJars, nothing from outside) and the JSON endpoints they
 * read under {@code /api/}. Reads and actions go through the admin API ({@code tide ctl}'s services,
 * over {@code admin}), so actions get exactly ctl's validation and error messages; the time series
 * and the last layout change come from a {@link Sampler}, the timeline from meta's {@link EventLog}
 * and the optimizer groups' keeper actions.
 *
 * <p>Auth: with a cluster token, every path requires it, as an {@code Authorization: Bearer} header
 * or the {@code tide_token} cookie that opening {@code /?token=TOKEN} sets (HttpOnly, SameSite=Strict);
 * actions also require {@code Content-Type: application/json}, which a cross-site form cannot send.
 * Without a token meta binds loopback only ({@link ClusterToken#requireForBind}).
 *
 * <p>Endpoints (JSON): {@code GET /api/dash/cluster}, {@code /api/dash/jobs/NAME},
 * {@code /api/dash/placement/NAME}, {@code /api/dash/history}, {@code /api/dash/events?after=SEQ},
 * {@code /api/dash/views/NAME?offset=O&limit=L}; {@code POST /api/dash/jobs/NAME/scale}
 * ({@code {"parallelism":"4","dryRun":true,"fragment":3}}), {@code .../pause}, {@code .../resume},
 * {@code POST /api/dash/workers/ID/drain}. Errors: {@code {"error": "..."}} with 400 (bad input),
 * 409 (not now), 401 (token), 404, 405, 501.
 */
public final class Dashboard implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(Dashboard.class);
  private static final String COOKIE = "tide_token";
  private static final Map<String, String> ASSETS = Map.of(
      "/assets/uPlot.iife.min.js", "META-INF/resources/webjars/uplot/1.6.30/dist/uPlot.iife.min.js",
      "/assets/uPlot.min.css", "META-INF/resources/webjars/uplot/1.6.30/dist/uPlot.min.css",
      "/assets/echarts.min.js", "META-INF/resources/webjars/echarts/5.3.1/dist/echarts.min.js");
  private static final Pattern JOB = Pattern.compile("/api/dash/jobs/([^/]+)(?:/(scale|pause|resume))?");
  private static final Pattern PLACEMENT = Pattern.compile("/api/dash/placement/([^/]+)");
  private static final Pattern VIEW = Pattern.compile("/api/dash/views/([^/]+)");
  private static final Pattern DRAIN = Pattern.compile("/api/dash/workers/(\\d+)/drain");
  private static final int MAX_PAGE = 1000;

  private final Meta meta;
  private final ManagedChannel admin;
  private final Optional<ClusterToken> token;
  private final Sampler sampler;

  /**
   * @param admin a channel to a server of the admin, view and (optionally) group services, carrying the token if any
   */
  public Dashboard(Meta meta, ManagedChannel admin, CommittedViews views, Optional<ClusterToken> token) {
    this.meta = meta;
    this.admin = admin;
    this.token = token;
    this.sampler = new Sampler(meta, views, AdminServiceGrpc.newBlockingStub(admin), 600);
  }

  /**
   * Threads for an HTTP server that hosts the dashboard: an action waits for its reschedule's barrier
   * to commit, which must not hold up other pages or a metrics scrape. Idle threads end after 30 s.
   */
  public static java.util.concurrent.Executor requestThreads() {
    java.util.concurrent.ThreadPoolExecutor pool = new java.util.concurrent.ThreadPoolExecutor(4, 4, 30, TimeUnit.SECONDS,
        new java.util.concurrent.LinkedBlockingQueue<>(), r -> {
          Thread t = new Thread(r, "meta-http");
          t.setDaemon(true);
          return t;
        });
    pool.allowCoreThreadTimeOut(true);
    return pool;
  }

  /** Serves the dashboard on {@code http} ({@code /} and {@code /api/dash/}) and starts sampling once a second. */
  public Dashboard mount(HttpServer http) {
    http.createContext("/", this::handle);
    sampler.start(1000);
    return this;
  }

  @Override
  public void close() {
    sampler.close();
  }

  /**
   * Serves a dashboard on its own HTTP server on loopback (for a process without meta's HTTP port,
   * the in-process playground), reading the admin API at {@code adminAddress}; port 0 picks a free one.
   *
   * @throws IllegalStateException naming the port when it cannot be bound
   */
  public static Served serveLoopback(int port, Meta meta, String adminAddress, CommittedViews views) {
    HttpServer http;
    try {
      http = HttpServer.create(new java.net.InetSocketAddress(java.net.InetAddress.getLoopbackAddress(), port), 16);
    } catch (IOException e) {
      throw new IllegalStateException("the dashboard cannot listen on 127.0.0.1:" + port + ": " + e.getMessage()
          + "; choose another port (0 picks a free one)", e);
    }
    http.setExecutor(requestThreads());
    ManagedChannel channel = io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder.forTarget(adminAddress).usePlaintext().build();
    Dashboard d = new Dashboard(meta, channel, views, Optional.empty()).mount(http);
    http.start();
    return new Served(http, d, channel);
  }

  /** A dashboard on its own HTTP server; closing stops both. */
  public record Served(HttpServer http, Dashboard dashboard, ManagedChannel channel) implements AutoCloseable {
    public String url() {
      return "http://127.0.0.1:" + http.getAddress().getPort() + "/";
    }

    @Override
    public void close() {
      dashboard.close();
      http.stop(0);
      channel.shutdownNow();
    }
  }

  private void handle(HttpExchange ex) throws IOException {
    try (ex) {
      String path = ex.getRequestURI().getPath();
      Map<String, String> query = query(ex.getRequestURI().getRawQuery());
      if (token.isPresent() && "/".equals(path) && query.containsKey("token")) {
        if (!token.get().accepts("Bearer " + query.get("token"))) {
          send(ex, 401, "application/json", error("wrong cluster token in ?token="));
          return;
        }
        ex.getResponseHeaders().add("Set-Cookie", COOKIE + "=" + query.get("token") + "; Path=/; HttpOnly; SameSite=Strict");
        ex.getResponseHeaders().add("Location", "/");
        send(ex, 303, "text/plain", "");
        return;
      }
      if (token.isPresent() && !authorized(ex)) {
        send(ex, 401, "application/json", error("missing or wrong cluster token: send 'Authorization: Bearer <token>'"
            + " or open /?token=<token> once"));
        return;
      }
      if (path.startsWith("/api/")) {
        api(ex, path, query);
      } else {
        asset(ex, path);
      }
    } catch (RuntimeException e) {
      LOG.warn("dashboard request {} failed", ex.getRequestURI(), e);
    }
  }

  private boolean authorized(HttpExchange ex) {
    ClusterToken t = token.get();
    if (t.accepts(ex.getRequestHeaders().getFirst("Authorization"))) {
      return true;
    }
    for (String header : ex.getRequestHeaders().getOrDefault("Cookie", List.of())) {
      for (String part : header.split(";")) {
        String p = part.trim();
        if (p.startsWith(COOKIE + "=") && t.accepts("Bearer " + p.substring(COOKIE.length() + 1))) {
          return true;
        }
      }
    }
    return false;
  }

  private void asset(HttpExchange ex, String path) throws IOException {
    if (!"GET".equals(ex.getRequestMethod())) {
      send(ex, 405, "application/json", error("only GET is served here"));
      return;
    }
    String resource = ASSETS.get(path);
    if (resource == null) {
      String name = path.equals("/") ? "index.html" : path.substring(1);
      resource = name.matches("[a-z]+\\.(html|js|css)") ? "dev/tide/dashboard/" + name : null;
    }
    InputStream in = resource == null ? null : Dashboard.class.getClassLoader().getResourceAsStream(resource);
    if (in == null) {
      send(ex, 404, "application/json", error("no page " + path + "; the dashboard starts at /"));
      return;
    }
    byte[] bytes;
    try (in) {
      bytes = in.readAllBytes();
    }
    String type = resource.endsWith(".html") ? "text/html; charset=utf-8" : resource.endsWith(".css") ? "text/css"
        : "application/javascript";
    send(ex, 200, type, bytes);
  }

  private void api(HttpExchange ex, String path, Map<String, String> query) throws IOException {
    boolean post = "POST".equals(ex.getRequestMethod());
    if (!post && !"GET".equals(ex.getRequestMethod())) {
      send(ex, 405, "application/json", error("only GET and POST are served here"));
      return;
    }
    int code = 200;
    String body;
    try {
      Matcher m;
      if (post) {
        String type = ex.getRequestHeaders().getFirst("Content-Type");
        if (type == null || !type.startsWith("application/json")) {
          throw new IllegalArgumentException("actions take 'Content-Type: application/json', not " + type);
        }
        String in = new String(ex.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
        if ((m = JOB.matcher(path)).matches() && m.group(2) != null) {
          body = action(decode(m.group(1)), m.group(2), in);
        } else if ((m = DRAIN.matcher(path)).matches()) {
          body = print(stub().workerDrain(WorkerDrainRequest.newBuilder().setWorkerId(Integer.parseInt(m.group(1))).build()));
        } else {
          throw Status.NOT_FOUND.withDescription("no action " + path).asRuntimeException();
        }
      } else if ("/api/dash/cluster".equals(path)) {
        body = cluster();
      } else if ((m = JOB.matcher(path)).matches() && m.group(2) == null) {
        body = job(decode(m.group(1)));
      } else if ((m = PLACEMENT.matcher(path)).matches()) {
        body = placement(decode(m.group(1)));
      } else if ("/api/dash/history".equals(path)) {
        body = sampler.historyJson();
      } else if ("/api/dash/events".equals(path)) {
        body = events(Long.parseLong(query.getOrDefault("after", "0")));
      } else if ((m = VIEW.matcher(path)).matches()) {
        body = view(decode(m.group(1)), Integer.parseInt(query.getOrDefault("offset", "0")),
            Integer.parseInt(query.getOrDefault("limit", "50")));
      } else {
        throw Status.NOT_FOUND.withDescription("no endpoint " + path + "; see docs/dashboard.md").asRuntimeException();
      }
    } catch (StatusRuntimeException e) {
      code = switch (e.getStatus().getCode()) {
        case INVALID_ARGUMENT -> 400;
        case FAILED_PRECONDITION -> 409;
        case NOT_FOUND -> 404;
        case UNIMPLEMENTED -> 501;
        case UNAUTHENTICATED, PERMISSION_DENIED -> 401;
        default -> 500;
      };
      body = error(e.getStatus().getDescription() == null ? e.getStatus().getCode().toString() : e.getStatus().getDescription());
    } catch (IllegalArgumentException e) {
      code = 400;
      body = error(e instanceof NumberFormatException ? "not a number: " + e.getMessage() : e.getMessage());
    }
    send(ex, code, "application/json", body);
  }

  private String action(String job, String what, String in) throws InvalidProtocolBufferException {
    return switch (what) {
      case "scale" -> {
        ScaleJobRequest.Builder b = ScaleJobRequest.newBuilder();
        try {
          JsonFormat.parser().merge(in.isBlank() ? "{}" : in, b);
        } catch (InvalidProtocolBufferException e) {
          throw new IllegalArgumentException("scale of job '" + job + "' refused: the body " + in
              + " is not {\"parallelism\": \"N|adaptive|bounded(N)|ratio(R)\", \"dryRun\": bool, \"fragment\": N}: " + e.getMessage());
        }
        yield print(stub().scale(b.setJob(job).build()));
      }
      case "pause" -> print(stub().pause(JobRequest.newBuilder().setJob(job).build()));
      default -> print(stub().resume(JobRequest.newBuilder().setJob(job).build()));
    };
  }

  private String cluster() throws InvalidProtocolBufferException {
    String groups;
    try {
      groups = print(groups().list(ListGroupsRequest.getDefaultInstance()));
    } catch (StatusRuntimeException e) {
      groups = "null"; // this deployment hosts no optimizer groups
    }
    return "{\"cluster\":" + print(stub().cluster(ClusterRequest.getDefaultInstance())) + ",\"status\":"
        + print(stub().status(StatusRequest.getDefaultInstance())) + ",\"groups\":" + groups + "}";
  }

  /**
   * A job: its summary and fragments as {@code tide ctl fragments} shows them, the operators of each
   * fragment, and the exchanges between fragments, with each fragment's measured load over the last
   * 30 s (rows/s, busy, backpressure, a source's backlog) where measured.
   */
  private String job(String name) throws InvalidProtocolBufferException {
    FragmentsResponse f = stub().fragments(FragmentsRequest.newBuilder().setJob(name).setStats(true).build());
    JobDefinition def = meta.jobs().get(name);
    StringBuilder ops = new StringBuilder("{");
    List<String> edges = new ArrayList<>();
    if (def != null) {
      for (Fragment fr : def.getFragmentsList()) {
        ops.append(ops.length() > 1 ? "," : "").append('"').append(fr.getFragmentId()).append("\":")
            .append(quote(fr.getNodesList().stream().map(n -> n.getKindCase().name().toLowerCase(java.util.Locale.ROOT))
                .filter(k -> !k.equals("merge")).collect(Collectors.joining(" > "))));
      }
      for (FragmentEdge e : def.getEdgesList()) {
        edges.add(print(e));
      }
    }
    return "{\"fragments\":" + print(f) + ",\"operators\":" + ops + "},\"edges\":[" + String.join(",", edges) + "]}";
  }

  private String placement(String name) throws InvalidProtocolBufferException {
    FragmentsResponse now = stub().fragments(FragmentsRequest.newBuilder().setJob(name).build());
    Sampler.Change last = sampler.lastChange(name);
    return "{\"after\":" + print(now) + ",\"before\":" + (last == null ? "null" : print(last.before()))
        + ",\"changedAtMs\":" + (last == null ? "null" : last.atMs()) + "}";
  }

  private String events(long after) {
    List<String> out = new ArrayList<>();
    for (EventLog.Entry e : meta.events().since(after)) {
      out.add(event(e.atMs(), e.kind(), e.subject(), e.reason(), e.seq()));
    }
    try {
      for (GroupView g : groups().list(ListGroupsRequest.getDefaultInstance()).getGroupsList()) {
        for (KeeperActionView a : g.getRecentActionsList()) {
          out.add(event(a.getAtMs(), "keeper", "group " + g.getName(), a.getReason(), -1));
        }
      }
    } catch (StatusRuntimeException e) {
      // no optimizer groups here
    }
    return "{\"events\":[" + String.join(",", out) + "]}";
  }

  private static String event(long atMs, String kind, String subject, String reason, long seq) {
    return "{\"seq\":" + seq + ",\"atMs\":" + atMs + ",\"kind\":" + quote(kind) + ",\"subject\":" + quote(subject)
        + ",\"reason\":" + quote(reason) + "}";
  }

  private String view(String name, int offset, int limit) throws InvalidProtocolBufferException {
    if (offset < 0 || limit < 1 || limit > MAX_PAGE) {
      throw new IllegalArgumentException("view page offset " + offset + ", limit " + limit + " refused: offset must be"
          + " at least 0 and limit between 1 and " + MAX_PAGE);
    }
    ScanResponse all = views().scan(ScanRequest.newBuilder().setView(name).setLimit(offset + limit).build());
    ScanResponse page = all.toBuilder().clearRows()
        .addAllRows(all.getRowsList().subList(Math.min(offset, all.getRowsCount()), all.getRowsCount())).build();
    return "{\"offset\":" + offset + ",\"page\":" + print(page) + "}";
  }

  private AdminServiceGrpc.AdminServiceBlockingStub stub() {
    return AdminServiceGrpc.newBlockingStub(admin).withDeadlineAfter(2, TimeUnit.MINUTES);
  }

  private ViewServiceGrpc.ViewServiceBlockingStub views() {
    return ViewServiceGrpc.newBlockingStub(admin).withDeadlineAfter(1, TimeUnit.MINUTES);
  }

  private GroupServiceGrpc.GroupServiceBlockingStub groups() {
    return GroupServiceGrpc.newBlockingStub(admin).withDeadlineAfter(30, TimeUnit.SECONDS);
  }

  static String print(MessageOrBuilder m) throws InvalidProtocolBufferException {
    return JsonFormat.printer().includingDefaultValueFields().omittingInsignificantWhitespace().print(m);
  }

  static String quote(String s) {
    StringBuilder b = new StringBuilder("\"");
    for (char c : (s == null ? "" : s).toCharArray()) {
      switch (c) {
        case '"' -> b.append("\\\"");
        case '\\' -> b.append("\\\\");
        case '\n' -> b.append("\\n");
        case '\r' -> b.append("\\r");
        case '\t' -> b.append("\\t");
        default -> {
          if (c < 0x20) {
            b.append(String.format("\\u%04x", (int) c));
          } else {
            b.append(c);
          }
        }
      }
    }
    return b.append('"').toString();
  }

  private static String error(String message) {
    return "{\"error\":" + quote(message) + "}";
  }

  private static String decode(String s) {
    return URLDecoder.decode(s, StandardCharsets.UTF_8);
  }

  private static Map<String, String> query(String raw) {
    Map<String, String> out = new HashMap<>();
    if (raw != null) {
      for (String kv : raw.split("&")) {
        int eq = kv.indexOf('=');
        if (eq > 0) {
          out.put(decode(kv.substring(0, eq)), decode(kv.substring(eq + 1)));
        }
      }
    }
    return out;
  }

  private static void send(HttpExchange ex, int code, String type, String text) throws IOException {
    send(ex, code, type, text.getBytes(StandardCharsets.UTF_8));
  }

  private static void send(HttpExchange ex, int code, String type, byte[] bytes) throws IOException {
    ex.getResponseHeaders().set("Content-Type", type);
    ex.getResponseHeaders().set("Cache-Control", "no-store");
    ex.sendResponseHeaders(code, bytes.length == 0 ? -1 : bytes.length);
    if (bytes.length > 0) {
      try (OutputStream out = ex.getResponseBody()) {
        out.write(bytes);
      }
    }
  }
}
