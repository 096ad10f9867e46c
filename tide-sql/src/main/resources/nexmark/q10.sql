-- Nexmark q10: log to file system, here to a view. Adaptation: PostgreSQL's TO_CHAR for Flink's
-- DATE_FORMAT (yyyy-MM-dd is YYYY-MM-DD, HH:mm is HH24:MI); a view instead of a partitioned file sink.
CREATE MATERIALIZED VIEW nexmark_q10 AS
SELECT auction, bidder, price, date_time, extra, TO_CHAR(date_time, 'YYYY-MM-DD') AS dt, TO_CHAR(date_time, 'HH24:MI') AS hm
FROM bid;
