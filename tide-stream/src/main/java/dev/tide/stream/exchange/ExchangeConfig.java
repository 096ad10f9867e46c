package dev.tide.stream.exchange;

import dev.tide.common.config.Config;
import dev.tide.common.config.ConfigException;
import dev.tide.common.config.ConfigOption;
import java.util.List;

/**
 * Flow control of exchange links, read by the receiving side (it grants the window).
 *
 * @param windowMessages permits a link starts with: messages (chunks or barriers) that may be between
 *     the sender and the receiver's channel at once
 * @param grantBatchMessages permits the receiver owes before it sends a grant; at most the window
 * @param maxMessageBytes largest encoded message a node's exchange server and client accept
 */
public record ExchangeConfig(int windowMessages, int grantBatchMessages, int maxMessageBytes) {
  public static final ConfigOption<Integer> WINDOW = ConfigOption.intOption("exchange.window", 16,
      "Initial permits of a remote exchange link, in messages (chunks of up to 1024 rows, or barriers). Bounds what is"
          + " in flight per link; the receiving channel's capacity bounds what is queued after it.")
      .withRule(v -> v >= 1 && v <= 65_536, "between 1 and 65536");
  public static final ConfigOption<Integer> GRANT_BATCH = ConfigOption.intOption("exchange.grant-batch", 4,
      "Permits the receiver of a link accumulates before granting them back in one message; at most exchange.window.")
      .withRule(v -> v >= 1, "at least 1");
  public static final ConfigOption<Integer> MAX_MESSAGE_BYTES = ConfigOption.intOption("exchange.max-message-bytes",
      64 << 20, "Largest encoded chunk an exchange link carries, in bytes (gRPC's maximum message size).")
      .withRule(v -> v >= 1 << 20, "at least 1048576 (1 MiB)");

  public static final List<ConfigOption<?>> ALL = List.of(WINDOW, GRANT_BATCH, MAX_MESSAGE_BYTES);

  public ExchangeConfig {
    if (windowMessages < 1 || grantBatchMessages < 1 || grantBatchMessages > windowMessages) {
      throw new ConfigException(GRANT_BATCH.key(), "grant batch " + grantBatchMessages + " with window " + windowMessages
          + " refused: must satisfy 1 <= exchange.grant-batch <= exchange.window");
    }
    if (maxMessageBytes < 1 << 20) {
      throw new ConfigException(MAX_MESSAGE_BYTES.key(), String.valueOf(maxMessageBytes), "at least 1048576 (1 MiB)");
    }
  }

  public static ExchangeConfig defaults() {
    return of(Config.defaults());
  }

  public static ExchangeConfig of(Config config) {
    return new ExchangeConfig(config.get(WINDOW), config.get(GRANT_BATCH), config.get(MAX_MESSAGE_BYTES));
  }
}
