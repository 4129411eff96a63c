MODEL (
  name shop.amounts_as_int,
  kind FULL
);

-- A step failing at run time: the customer names do not cast to INT.
SELECT CAST(customer AS INT) AS customer_id, amount
FROM shop.orders_seed
