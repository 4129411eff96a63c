"""A task fails on its first attempt and its retry succeeds."""
from prefect import flow

from orders_tasks import flaky_export, load, totals


@flow
def orders_flaky() -> None:
    flaky_export(totals(load("data/orders.csv"), 0))


if __name__ == "__main__":
    orders_flaky()
