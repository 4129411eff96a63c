"""The tasks of the tiny orders flows (data/orders.csv -> out/report.txt).

Every flow script here is run from this directory as `python <script>.py`,
in Prefect's ephemeral mode (a temporary local server, no API URL set).
"""
import csv
import os

from prefect import get_run_logger, task


@task
def load(path: str) -> list[dict]:
    with open(path) as f:
        return list(csv.DictReader(f))


@task
def totals(rows: list[dict], min_amount: int) -> dict[str, int]:
    out: dict[str, int] = {}
    for row in rows:
        amount = int(row["amount"])
        if amount >= min_amount:
            out[row["customer"]] = out.get(row["customer"], 0) + amount
    get_run_logger().info("totals: %d customers", len(out))
    return out


@task
def write_report(per_customer: dict[str, int]) -> str:
    os.makedirs("out", exist_ok=True)
    with open("out/report.txt", "w") as f:
        for customer, total in sorted(per_customer.items()):
            f.write(f"{customer},{total}\n")
    return "out/report.txt"


@task
def parse_amounts(rows: list[dict]) -> list[int]:
    """A step that raises."""
    raise ValueError("amount column has a non-numeric value: 'n/a'")


@task(retries=1, retry_delay_seconds=0)
def flaky_export(per_customer: dict[str, int]) -> int:
    """Fails on its first attempt in a fresh copy (its marker is under out/),
    succeeds on the retry."""
    os.makedirs("out", exist_ok=True)
    if not os.path.exists("out/flaky.attempted"):
        open("out/flaky.attempted", "w").close()
        raise ConnectionError("warehouse connection reset by peer")
    return len(per_customer)
