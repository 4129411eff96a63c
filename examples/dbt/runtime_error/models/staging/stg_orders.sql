-- The orders seed has no discount column: DuckDB rejects the view when dbt
-- creates it (Binder Error), a runtime error of this model.
select order_id, customer_id, cast(order_date as date) as order_date, status, discount
from {{ ref('orders') }}
