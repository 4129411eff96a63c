MODEL (
  name shop.timeout_error_counts,
  kind FULL,
  audits (not_null(columns := (outcome)))
);

SELECT outcome, COUNT(*) AS calls
FROM shop.failed_calls
GROUP BY outcome
