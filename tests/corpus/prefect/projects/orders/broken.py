"""A task raises."""
from prefect import flow

from orders_tasks import load, parse_amounts


@flow
def orders_broken() -> None:
    parse_amounts(load("data/orders.csv"))


if __name__ == "__main__":
    orders_broken()
