"""Tasks cached on their inputs: a second run in the same PREFECT_HOME finds
every result cached."""
from prefect import flow, task
from prefect.cache_policies import INPUTS


@task(cache_policy=INPUTS, persist_result=True)
def load_cached(path: str) -> list[dict]:
    import csv

    with open(path) as f:
        return list(csv.DictReader(f))


@task(cache_policy=INPUTS, persist_result=True)
def total_cached(rows: list[dict]) -> int:
    return sum(int(r["amount"]) for r in rows)


@flow
def orders_cached() -> int:
    return total_cached(load_cached("data/orders.csv"))


if __name__ == "__main__":
    orders_cached()
