-- Nexmark q12: bids per bidder in 10 s tumbling windows. Adaptation: the published query windows by
-- processing time (PROCTIME()), which Tide's sources do not provide and whose result no reference
-- could reproduce; this one windows by the bids' event time.
CREATE MATERIALIZED VIEW nexmark_q12 AS
SELECT bidder, COUNT(*) AS bid_count, window_start, window_end
FROM TABLE(TUMBLE(TABLE bid, DESCRIPTOR(date_time), INTERVAL '10' SECOND))
GROUP BY bidder, window_start, window_end;
