-- Written by dbt-duckdb as a Parquet file in the project.
{{ config(materialized='external', location='out/order_totals.parquet', format='parquet') }}
select * from {{ ref('order_totals') }} order by order_id
