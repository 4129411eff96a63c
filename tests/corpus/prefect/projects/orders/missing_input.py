"""A task opens an input file that is not there."""
from prefect import flow

from orders_tasks import load, totals


@flow
def refunds() -> None:
    totals(load("data/refunds.csv"), 0)


if __name__ == "__main__":
    refunds()
