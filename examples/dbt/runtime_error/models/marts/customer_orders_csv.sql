-- Written by dbt-duckdb as a CSV file in the project.
{{ config(materialized='external', location='out/customer_orders.csv', format='csv') }}
select * from {{ ref('customer_orders') }} order by customer_id
