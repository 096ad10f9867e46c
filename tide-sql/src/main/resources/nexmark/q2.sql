-- Nexmark q2: selection of some auctions. Adaptation: MOD(auction, 123) for auction % 123.
CREATE MATERIALIZED VIEW nexmark_q2 AS
SELECT auction, price FROM bid WHERE MOD(auction, 123) = 0;
