select
    c.customer_id,
    c.customer_name,
    count(t.order_id) as orders,
    coalesce(sum(t.order_total), 0) as total_spent,
    (select count(*) from {{ ref('stg_calls') }} as k where k.customer_id = c.customer_id) as calls
from {{ ref('stg_customers') }} as c
left join {{ ref('order_totals') }} as t using (customer_id)
group by all
