package dev.tide.sql;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A PostgreSQL wire protocol (v3) server: one thread accepts, one thread per connection runs a
 * {@link PgSession} over the shared {@link SqlEngine}. A CancelRequest naming a session's process
 * id and secret cancels the statement that session runs.
 */
public final class PgServer implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(PgServer.class);

  private final ServerSocket socket;
  private final SqlEngine engine;
  private final Optional<String> password;
  private final ExecutorService threads = Executors.newCachedThreadPool(r -> {
    Thread t = new Thread(r, "pg-session");
    t.setDaemon(true);
    return t;
  });
  private final Map<Integer, PgSession> sessions = new ConcurrentHashMap<>();
  private final AtomicInteger nextPid = new AtomicInteger(1);
  private final Random secrets;

  private PgServer(ServerSocket socket, SqlEngine engine, Optional<String> password, Random secrets) {
    this.socket = socket;
    this.engine = engine;
    this.password = password;
    this.secrets = secrets;
  }

  /**
   * Listens on {@code bind} (port 0: any free one).
   *
   * @param password the cleartext password clients must send (the cluster token); empty: trust
   * @throws IllegalStateException when the port cannot be bound, naming the address and the option to change
   */
  public static PgServer start(InetSocketAddress bind, SqlEngine engine, Optional<String> password, Random secrets) {
    ServerSocket s;
    try {
      s = new ServerSocket();
      s.setReuseAddress(true);
      s.bind(bind);
    } catch (IOException e) {
      throw new IllegalStateException("the SQL server cannot listen on " + bind.getHostString() + ":" + bind.getPort() + ": "
          + e.getMessage() + "; choose another port with " + SqlOptions.PORT.key() + " (0 picks a free one, -1 turns it off)", e);
    }
    PgServer server = new PgServer(s, engine, password, secrets);
    Thread accept = new Thread(server::acceptLoop, "pg-accept");
    accept.setDaemon(true);
    accept.start();
    LOG.info("SQL (PostgreSQL protocol) on {}:{}", bind.getHostString(), s.getLocalPort());
    return server;
  }

  public int port() {
    return socket.getLocalPort();
  }

  private void acceptLoop() {
    while (!socket.isClosed()) {
      Socket c;
      try {
        c = socket.accept();
      } catch (IOException e) {
        if (!socket.isClosed()) {
          LOG.warn("SQL server accept failed: {}", e.toString());
        }
        return;
      }
      threads.execute(() -> serve(c));
    }
  }

  private void serve(Socket c) {
    int pid = nextPid.getAndIncrement();
    int secret;
    synchronized (secrets) {
      secret = secrets.nextInt();
    }
    PgSession session = new PgSession(c, engine, password, pid, secret, this::cancel);
    sessions.put(pid, session);
    try (c) {
      c.setTcpNoDelay(true);
      session.run();
    } catch (SocketException e) {
      LOG.debug("SQL session {} closed: {}", pid, e.toString());
    } catch (IOException | RuntimeException e) {
      LOG.warn("SQL session {} ended: {}", pid, e.toString());
    } finally {
      sessions.remove(pid);
    }
  }

  /** A CancelRequest: cancels what the named session runs when the secret matches, else nothing. */
  private void cancel(int pid, int secret) {
    PgSession s = sessions.get(pid);
    if (s != null && s.secret() == secret) {
      s.cancel();
    }
  }

  @Override
  public void close() {
    try {
      socket.close();
    } catch (IOException e) {
      LOG.debug("closing the SQL server socket: {}", e.toString());
    }
    threads.shutdownNow();
  }
}
