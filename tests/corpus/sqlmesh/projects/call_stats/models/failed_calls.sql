MODEL (
  name shop.failed_calls,
  kind FULL,
  audits (
    not_null(columns := (outcome)),
    accepted_values(column := outcome, is_in := ('Timeout', 'Interrupted', 'failed'))
  )
);

-- Healthy: the names and values of this model name failures harmlessly.
SELECT call_id, outcome, seconds
FROM shop.calls_seed
WHERE outcome <> 'Completed'
