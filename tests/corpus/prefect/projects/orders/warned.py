"""Succeeds after logging WARNING records."""
from prefect import flow, get_run_logger, task

from orders_tasks import load, totals


@task
def check_regions(per_customer: dict[str, int]) -> None:
    logger = get_run_logger()
    logger.warning("3 orders have no region, defaulting to 'unknown'")
    logger.warning("exchange rate for 2024-01-31 is stale (2 days old)")


@flow
def orders_warned() -> None:
    check_regions(totals(load("data/orders.csv"), 0))


if __name__ == "__main__":
    orders_warned()
