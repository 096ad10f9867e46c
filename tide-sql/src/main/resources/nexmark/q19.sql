-- Nexmark q19: the ten highest bids of each auction, with their rank (equal prices: the least bid
-- id ranks first).
CREATE MATERIALIZED VIEW nexmark_q19 AS
SELECT * FROM (
  SELECT *, ROW_NUMBER() OVER (PARTITION BY auction ORDER BY price DESC) AS rank_number
  FROM bid
)
WHERE rank_number <= 10;
