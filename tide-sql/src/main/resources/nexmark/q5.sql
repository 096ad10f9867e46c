-- Nexmark q5, first half ("q5-ish"): bids per auction in hopping windows of 10 s every 2 s.
-- Adaptation: Calcite's HOP table function (slide, then size); the hottest-item top-N over these
-- counts is not expressible yet (no ROW_NUMBER / EMIT ON WINDOW CLOSE in Tide's SQL).
CREATE MATERIALIZED VIEW nexmark_q5 AS
SELECT auction, window_start, COUNT(*) AS num
FROM TABLE(HOP(TABLE bid, DESCRIPTOR(date_time), INTERVAL '2' SECOND, INTERVAL '10' SECOND))
GROUP BY auction, window_start;
