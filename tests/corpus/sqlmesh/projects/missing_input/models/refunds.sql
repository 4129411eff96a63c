MODEL (
  name shop.refunds,
  kind FULL
);

-- An input file that is not there.
SELECT * FROM read_csv('seeds/refunds.csv')
