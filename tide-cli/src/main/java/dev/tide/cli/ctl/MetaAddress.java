package dev.tide.cli.ctl;

import picocli.CommandLine;

/**
 * Where meta's admin API listens: {@code HOST:PORT}, IPv6 hosts in brackets ({@code [::1]:5690}).
 *
 * @param host a name or literal address, without brackets
 * @param port 1..65535
 */
public record MetaAddress(String host, int port) {
  /** The playground's default admin port. */
  public static final int DEFAULT_PORT = 5690;
  public static final String DEFAULT = "127.0.0.1:" + DEFAULT_PORT;

  public MetaAddress {
    if (host == null || host.isBlank()) {
      throw new IllegalArgumentException("the host is empty");
    }
    if (port < 1 || port > 65535) {
      throw new IllegalArgumentException("port " + port + " is not between 1 and 65535");
    }
  }

  /**
   * Parses {@code HOST:PORT}.
   *
   * @throws IllegalArgumentException naming the bad part and the expected form
   */
  public static MetaAddress parse(String text) {
    String t = text == null ? "" : text.strip();
    int colon = t.lastIndexOf(':');
    if (colon < 0) {
      throw new IllegalArgumentException("'" + t + "' is not of the form HOST:PORT, e.g. " + DEFAULT);
    }
    String host = t.substring(0, colon);
    if (host.startsWith("[") && host.endsWith("]")) {
      host = host.substring(1, host.length() - 1);
    } else if (host.contains(":")) {
      throw new IllegalArgumentException("'" + t + "' is not of the form HOST:PORT: put an IPv6 host in brackets, e.g. [::1]:5690");
    }
    String port = t.substring(colon + 1);
    if (!port.matches("\\d{1,5}")) {
      throw new IllegalArgumentException("'" + t + "' has no valid port: expected HOST:PORT with a port between 1 and 65535");
    }
    try {
      return new MetaAddress(host, Integer.parseInt(port));
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("'" + t + "' is not a valid HOST:PORT: " + e.getMessage());
    }
  }

  @Override
  public String toString() {
    return (host.contains(":") ? "[" + host + "]" : host) + ":" + port;
  }

  /** picocli converter: a bad address is a usage error (exit 2) naming the option. */
  static final class Converter implements CommandLine.ITypeConverter<MetaAddress> {
    @Override
    public MetaAddress convert(String value) {
      try {
        return parse(value);
      } catch (IllegalArgumentException e) {
        throw new CommandLine.TypeConversionException(e.getMessage());
      }
    }
  }
}
