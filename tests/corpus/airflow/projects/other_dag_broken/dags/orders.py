"""The healthy DAG: data/orders.csv -> per-customer totals -> out/report.txt.

The project's dir is AIRFLOW_HOME (dags/ in it); tasks run in the dir
`airflow dags test` is run from (the project's), so data paths are relative.
"""
import csv
import logging
import os
from datetime import datetime

from airflow.sdk import Param, dag, task

log = logging.getLogger(__name__)


@dag(
    schedule=None,
    start_date=datetime(2024, 1, 1),
    catchup=False,
    params={"min_amount": Param(0, type="integer", minimum=0)},
)
def orders():
    @task
    def load() -> list[dict]:
        with open("data/orders.csv") as f:
            return list(csv.DictReader(f))

    @task
    def totals(rows: list[dict], params=None) -> dict[str, int]:
        out: dict[str, int] = {}
        for row in rows:
            if int(row["amount"]) >= params["min_amount"]:
                out[row["customer"]] = out.get(row["customer"], 0) + int(row["amount"])
        log.info("totals: %d customers", len(out))
        return out

    @task
    def report(per_customer: dict[str, int]) -> str:
        os.makedirs("out", exist_ok=True)
        with open("out/report.txt", "w") as f:
            for customer, total in sorted(per_customer.items()):
                f.write(f"{customer},{total}\n")
        return "out/report.txt"

    report(totals(load()))


orders()
