-- Nexmark q11: user sessions, the bids of each bidder in sessions closed by 10 s without a bid.
-- Adaptation: Calcite's SESSION table function (partitioned by bidder) for Flink's legacy
-- GROUP BY SESSION(dateTime, INTERVAL '10' SECOND) with SESSION_START/SESSION_END; window_end is the
-- session's last bid time + 10 s, as Flink's SESSION_END.
CREATE MATERIALIZED VIEW nexmark_q11 AS
SELECT bidder, COUNT(*) AS bid_count, window_start AS starttime, window_end AS endtime
FROM TABLE(SESSION(TABLE bid, DESCRIPTOR(date_time), DESCRIPTOR(bidder), INTERVAL '10' SECOND))
GROUP BY bidder, window_start, window_end;
