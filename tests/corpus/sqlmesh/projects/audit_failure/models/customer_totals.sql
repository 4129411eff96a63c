MODEL (
  name shop.customer_totals,
  kind FULL,
  grain customer,
  audits (
    not_null(columns := (customer, total)),
    unique_values(columns := (customer))
  )
);

SELECT
  customer,
  SUM(amount) AS total,
  COUNT(*) AS orders
FROM shop.orders_seed
GROUP BY customer
