"""The healthy flow. Parameters as KEY=VALUE arguments:
`python healthy.py min_amount=20`."""
import sys

from prefect import flow, get_run_logger

from orders_tasks import load, totals, write_report


@flow
def orders(path: str = "data/orders.csv", min_amount: int = 0) -> str:
    per_customer = totals(load(path), min_amount)
    report = write_report(per_customer)
    get_run_logger().info("report written to %s", report)
    return report


if __name__ == "__main__":
    orders(**dict(arg.split("=", 1) for arg in sys.argv[1:]))
