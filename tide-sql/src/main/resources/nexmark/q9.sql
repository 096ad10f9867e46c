-- Nexmark q9: winning bids, each auction with its highest bid between its start and its expiry
-- (the earliest of equal bids; then the least bid id, so that ties are decided the same way every run).
CREATE MATERIALIZED VIEW nexmark_q9 AS
SELECT id, item_name, description, initial_bid, reserve, date_time, expires, seller, category, extra,
  auction, bidder, price, bid_date_time, bid_extra
FROM (
  SELECT A.*, B.auction, B.bidder, B.price, B.date_time AS bid_date_time, B.extra AS bid_extra,
    ROW_NUMBER() OVER (PARTITION BY A.id ORDER BY B.price DESC, B.date_time ASC) AS rownum
  FROM auction A, bid B
  WHERE A.id = B.auction AND B.date_time BETWEEN A.date_time AND A.expires
)
WHERE rownum <= 1;
