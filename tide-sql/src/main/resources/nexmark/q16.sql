-- Nexmark q16: channel statistics per day. Adaptation: TO_CHAR for DATE_FORMAT (see q15).
CREATE MATERIALIZED VIEW nexmark_q16 AS
SELECT
  channel,
  TO_CHAR(date_time, 'YYYY-MM-DD') AS "day",
  MAX(TO_CHAR(date_time, 'HH24:MI')) AS "minute",
  COUNT(*) AS total_bids,
  COUNT(*) FILTER (WHERE price < 10000) AS rank1_bids,
  COUNT(*) FILTER (WHERE price >= 10000 AND price < 1000000) AS rank2_bids,
  COUNT(*) FILTER (WHERE price >= 1000000) AS rank3_bids,
  COUNT(DISTINCT bidder) AS total_bidders,
  COUNT(DISTINCT bidder) FILTER (WHERE price < 10000) AS rank1_bidders,
  COUNT(DISTINCT bidder) FILTER (WHERE price >= 10000 AND price < 1000000) AS rank2_bidders,
  COUNT(DISTINCT bidder) FILTER (WHERE price >= 1000000) AS rank3_bidders,
  COUNT(DISTINCT auction) AS total_auctions,
  COUNT(DISTINCT auction) FILTER (WHERE price < 10000) AS rank1_auctions,
  COUNT(DISTINCT auction) FILTER (WHERE price >= 10000 AND price < 1000000) AS rank2_auctions,
  COUNT(DISTINCT auction) FILTER (WHERE price >= 1000000) AS rank3_auctions
FROM bid
GROUP BY channel, TO_CHAR(date_time, 'YYYY-MM-DD');
