"""A task submitted and never waited for fails: Prefect 3 finishes the flow
run Completed and the script exits 0."""
from prefect import flow

from orders_tasks import load, parse_amounts


@flow
def orders_unresolved() -> None:
    parse_amounts.submit(load("data/orders.csv"))


if __name__ == "__main__":
    orders_unresolved()
