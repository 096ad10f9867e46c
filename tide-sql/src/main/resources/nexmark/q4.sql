-- Nexmark q4: average closing price per category (the winning bid of each auction: its highest bid
-- between the auction's start and its expiry).
CREATE MATERIALIZED VIEW nexmark_q4 AS
SELECT Q.category, AVG(Q.final) AS avg_final
FROM (
  SELECT MAX(B.price) AS final, A.category
  FROM auction A, bid B
  WHERE A.id = B.auction AND B.date_time BETWEEN A.date_time AND A.expires
  GROUP BY A.id, A.category
) Q
GROUP BY Q.category;
