select
    o.order_id,
    o.customer_id,
    o.order_date,
    o.status,
    count(l.line_no) as lines,
    sum(l.line_amount) as order_total
from {{ ref('stg_orders') }} as o
join {{ ref('stg_order_lines') }} as l using (order_id)
group by all
