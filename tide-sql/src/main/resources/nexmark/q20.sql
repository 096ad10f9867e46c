-- Nexmark q20: bids expanded with their auction, for auctions of category 10.
CREATE MATERIALIZED VIEW nexmark_q20 AS
SELECT
  auction, bidder, price, channel, url, B.date_time, B.extra,
  item_name, description, initial_bid, reserve, A.date_time AS auction_date_time, expires, seller, category,
  A.extra AS auction_extra
FROM bid AS B INNER JOIN auction AS A ON B.auction = A.id
WHERE A.category = 10;
