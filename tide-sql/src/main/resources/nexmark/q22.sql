-- Nexmark q22: the first directories of each bid's url. Adaptation: PostgreSQL's SPLIT_PART, whose
-- fields count from 1 (Flink's SPLIT_INDEX counts from 0) and which gives '' (not NULL) past the end.
CREATE MATERIALIZED VIEW nexmark_q22 AS
SELECT
  auction, bidder, price, channel,
  SPLIT_PART(url, '/', 4) AS dir1,
  SPLIT_PART(url, '/', 5) AS dir2,
  SPLIT_PART(url, '/', 6) AS dir3
FROM bid;
