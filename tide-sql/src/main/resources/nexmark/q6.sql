-- Nexmark q6: average selling price per seller over their last closed auctions (each auction's
-- winning price averaged with those of the seller's 10 auctions before it).
-- Adaptation: the published query selects B.dateTime, which is neither grouped nor aggregated; the
-- auctions are ordered by their expiry instead (A.expires, grouped), the time an auction closes.
CREATE MATERIALIZED VIEW nexmark_q6 AS
SELECT Q.seller,
  AVG(Q.final) OVER (PARTITION BY Q.seller ORDER BY Q.expires ROWS BETWEEN 10 PRECEDING AND CURRENT ROW) AS avg_final
FROM (
  SELECT MAX(B.price) AS final, A.seller, A.expires
  FROM auction AS A, bid AS B
  WHERE A.id = B.auction AND B.date_time BETWEEN A.date_time AND A.expires
  GROUP BY A.id, A.seller, A.expires
) AS Q;
