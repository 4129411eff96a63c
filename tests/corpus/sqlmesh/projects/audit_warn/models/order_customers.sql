MODEL (
  name shop.order_customers,
  kind FULL,
  -- Non-blocking: acme has two orders, so the audit fails and only warns.
  audits (unique_values(columns := (customer), blocking := false))
);

SELECT customer, amount FROM shop.orders_seed
