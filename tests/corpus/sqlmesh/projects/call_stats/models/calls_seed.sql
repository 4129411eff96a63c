MODEL (
  name shop.calls_seed,
  kind SEED (path '../seeds/calls.csv'),
  columns (call_id INT, outcome TEXT, seconds INT),
  grain call_id
);
