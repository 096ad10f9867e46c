package dev.tide.cli.ctl;

import dev.tide.cluster.Endpoint;
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
    Endpoint e = Endpoint.parse(text, DEFAULT);
    try {
      return new MetaAddress(e.host(), e.port());
    } catch (IllegalArgumentException ex) {
      throw new IllegalArgumentException("'" + e + "' is not a valid HOST:PORT: " + ex.getMessage());
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
