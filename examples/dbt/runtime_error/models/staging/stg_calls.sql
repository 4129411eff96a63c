select call_id, customer_id, outcome
from {{ ref('calls') }}
