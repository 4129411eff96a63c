MODEL (
  name shop.order_customers,
  kind FULL,
  -- Blocking (the default): acme has two orders, so the audit fails.
  audits (unique_values(columns := (customer)))
);

SELECT customer, amount FROM shop.orders_seed
