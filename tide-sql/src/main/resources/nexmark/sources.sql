-- The Nexmark sources the q*.sql views read. Options after nexmark. go to the generator:
-- events (total, -1 unbounded), rate (events per second, 0 unthrottled), seed, event-time-rate, splits.
CREATE SOURCE bid (
  auction BIGINT, bidder BIGINT, price BIGINT, channel VARCHAR, url VARCHAR, date_time TIMESTAMP, extra VARCHAR,
  WATERMARK FOR date_time AS date_time - INTERVAL '4' SECOND
) WITH (connector = 'nexmark', nexmark.table.type = 'bid', nexmark.events = '${events}', nexmark.rate = '${rate}',
  nexmark.seed = '${seed}', nexmark.event-time-rate = '${event-time-rate}', nexmark.splits = '${splits}');
CREATE SOURCE auction (
  id BIGINT, item_name VARCHAR, description VARCHAR, initial_bid BIGINT, reserve BIGINT, date_time TIMESTAMP,
  expires TIMESTAMP, seller BIGINT, category BIGINT, extra VARCHAR,
  WATERMARK FOR date_time AS date_time - INTERVAL '4' SECOND
) WITH (connector = 'nexmark', nexmark.table.type = 'auction', nexmark.events = '${events}', nexmark.rate = '${rate}',
  nexmark.seed = '${seed}', nexmark.event-time-rate = '${event-time-rate}', nexmark.splits = '${splits}');
CREATE SOURCE person (
  id BIGINT, name VARCHAR, email_address VARCHAR, credit_card VARCHAR, city VARCHAR, state VARCHAR, date_time TIMESTAMP,
  extra VARCHAR,
  WATERMARK FOR date_time AS date_time - INTERVAL '4' SECOND
) WITH (connector = 'nexmark', nexmark.table.type = 'person', nexmark.events = '${events}', nexmark.rate = '${rate}',
  nexmark.seed = '${seed}', nexmark.event-time-rate = '${event-time-rate}', nexmark.splits = '${splits}');
