-- Nexmark q7: the highest bids of each 10 s tumbling window (ties included).
-- Adaptation: Calcite's TUMBLE table function; the window's maximum is joined back on (price, window).
CREATE MATERIALIZED VIEW nexmark_q7 AS
SELECT b.auction, b.price, b.bidder, b.date_time
FROM TABLE(TUMBLE(TABLE bid, DESCRIPTOR(date_time), INTERVAL '10' SECOND)) AS b
JOIN (
  SELECT window_start, MAX(price) AS maxprice
  FROM TABLE(TUMBLE(TABLE bid, DESCRIPTOR(date_time), INTERVAL '10' SECOND))
  GROUP BY window_start
) AS m ON b.price = m.maxprice AND b.window_start = m.window_start;
