-- Nexmark q17: auction statistics per day. Adaptation: TO_CHAR for DATE_FORMAT (see q15).
CREATE MATERIALIZED VIEW nexmark_q17 AS
SELECT
  auction,
  TO_CHAR(date_time, 'YYYY-MM-DD') AS "day",
  COUNT(*) AS total_bids,
  COUNT(*) FILTER (WHERE price < 10000) AS rank1_bids,
  COUNT(*) FILTER (WHERE price >= 10000 AND price < 1000000) AS rank2_bids,
  COUNT(*) FILTER (WHERE price >= 1000000) AS rank3_bids,
  MIN(price) AS min_price,
  MAX(price) AS max_price,
  AVG(price) AS avg_price,
  SUM(price) AS sum_price
FROM bid
GROUP BY auction, TO_CHAR(date_time, 'YYYY-MM-DD');
