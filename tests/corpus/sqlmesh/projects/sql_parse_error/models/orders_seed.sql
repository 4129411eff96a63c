MODEL (
  name shop.orders_seed,
  kind SEED (path '../seeds/orders.csv'),
  columns (order_id INT, customer TEXT, amount INT),
  grain order_id
);
