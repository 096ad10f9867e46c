-- Nexmark q14: calculation. Adaptations: EXTRACT(HOUR FROM date_time) for Flink's HOUR(dateTime);
-- the count_char(extra, 'c') UDF as CHAR_LENGTH(extra) - CHAR_LENGTH(REPLACE(extra, 'c', '')).
CREATE MATERIALIZED VIEW nexmark_q14 AS
SELECT auction, bidder, 0.908 * price AS price,
  CASE
    WHEN EXTRACT(HOUR FROM date_time) >= 8 AND EXTRACT(HOUR FROM date_time) <= 18 THEN 'dayTime'
    WHEN EXTRACT(HOUR FROM date_time) <= 6 OR EXTRACT(HOUR FROM date_time) >= 20 THEN 'nightTime'
    ELSE 'otherTime'
  END AS bid_time_type,
  date_time, extra, CHAR_LENGTH(extra) - CHAR_LENGTH(REPLACE(extra, 'c', '')) AS c_counts
FROM bid
WHERE 0.908 * price > 1000000 AND 0.908 * price < 50000000;
