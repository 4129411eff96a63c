select order_id, line_no, product, quantity, unit_price, quantity * unit_price as line_amount
from {{ ref('order_lines') }}
