package dev.tide.cluster;

import java.net.InetSocketAddress;

/**
 * A {@code HOST:PORT} to listen on or connect to; IPv6 hosts in brackets ({@code [::1]:5690}).
 *
 * @param host a name or literal address, without brackets
 * @param port 0..65535 (0: any free port, for listening)
 */
public record Endpoint(String host, int port) {
  public Endpoint {
    if (host == null || host.isBlank()) {
      throw new IllegalArgumentException("the host is empty");
    }
    if (port < 0 || port > 65535) {
      throw new IllegalArgumentException("port " + port + " is not between 0 and 65535");
    }
  }

  /**
   * Parses {@code HOST:PORT}.
   *
   * @throws IllegalArgumentException naming the bad part and the expected form, e.g. {@code example}
   */
  public static Endpoint parse(String text, String example) {
    String t = text == null ? "" : text.strip();
    int colon = t.lastIndexOf(':');
    if (colon < 0) {
      throw new IllegalArgumentException("'" + t + "' is not of the form HOST:PORT, e.g. " + example);
    }
    String host = t.substring(0, colon);
    if (host.startsWith("[") && host.endsWith("]")) {
      host = host.substring(1, host.length() - 1);
    } else if (host.contains(":")) {
      throw new IllegalArgumentException("'" + t + "' is not of the form HOST:PORT: put an IPv6 host in brackets, e.g. [::1]:5690");
    }
    String port = t.substring(colon + 1);
    if (!port.matches("\\d{1,5}")) {
      throw new IllegalArgumentException("'" + t + "' has no valid port: expected HOST:PORT with a port between 0 and 65535");
    }
    try {
      return new Endpoint(host, Integer.parseInt(port));
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("'" + t + "' is not a valid HOST:PORT: " + e.getMessage());
    }
  }

  public InetSocketAddress socketAddress() {
    return new InetSocketAddress(host, port);
  }

  public Endpoint withPort(int p) {
    return new Endpoint(host, p);
  }

  @Override
  public String toString() {
    return (host.contains(":") ? "[" + host + "]" : host) + ":" + port;
  }
}
