"""DAGs that end in each outcome a harness must tell apart."""
import logging
import os
from datetime import datetime, timedelta

from airflow.sdk import dag, task

log = logging.getLogger("airflow.task")
START = datetime(2024, 1, 1)


@task
def load() -> int:
    return 4


@dag(schedule=None, start_date=START, catchup=False)
def orders_broken():
    """A task raises."""

    @task
    def parse_amounts(n: int) -> None:
        raise ValueError("amount column has a non-numeric value: 'n/a'")

    parse_amounts(load())


orders_broken()


@dag(schedule=None, start_date=START, catchup=False)
def orders_missing_input():
    """A task opens an input file that is not there."""

    @task
    def load_refunds() -> str:
        with open("data/refunds.csv") as f:
            return f.read()

    load_refunds()


orders_missing_input()


@dag(schedule=None, start_date=START, catchup=False)
def orders_cleanup_leaf():
    """A task raises; the leaf task runs anyway (trigger_rule all_done) and
    succeeds, so Airflow marks the DAG run successful."""

    @task
    def parse_amounts(n: int) -> None:
        raise ValueError("amount column has a non-numeric value: 'n/a'")

    @task(trigger_rule="all_done")
    def cleanup() -> None:
        log.info("temporary files removed")

    parse_amounts(load()) >> cleanup()


orders_cleanup_leaf()


@dag(schedule=None, start_date=START, catchup=False)
def orders_empty():
    """No tasks: nothing runs."""


orders_empty()


@dag(schedule=None, start_date=START, catchup=False)
def orders_warned():
    """Succeeds after logging WARNING records."""

    @task
    def check_regions(n: int) -> None:
        log.warning("3 orders have no region, defaulting to 'unknown'")
        log.warning("exchange rate for 2024-01-31 is stale (2 days old)")

    check_regions(load())


orders_warned()


@dag(schedule=None, start_date=START, catchup=False)
def orders_flaky():
    """A task fails on its first try in a fresh copy (its marker is under
    out/) and its retry succeeds."""

    @task(retries=1, retry_delay=timedelta(seconds=0))
    def export(n: int) -> int:
        os.makedirs("out", exist_ok=True)
        if not os.path.exists("out/flaky.attempted"):
            open("out/flaky.attempted", "w").close()
            raise ConnectionError("warehouse connection reset by peer")
        return n

    export(load())


orders_flaky()


@dag(schedule=None, start_date=START, catchup=False)
def orders_call_stats():
    """Healthy; a task retried after a TimeoutError succeeds, and the records
    name failures harmlessly."""

    @task(retries=1, retry_delay=timedelta(seconds=0))
    def fetch_rates() -> float:
        os.makedirs("out", exist_ok=True)
        if not os.path.exists("out/rates.attempted"):
            open("out/rates.attempted", "w").close()
            raise TimeoutError("rate service did not answer in 2s")
        return 1.08

    @task
    def call_stats(rate: float) -> None:
        log.info("call ended in Timeout, using cached value")
        try:
            raise TimeoutError("rate service did not answer in 2s")
        except TimeoutError as exc:
            log.warning("caught TimeoutError (%s), retrying once", exc)
        log.info("outcomes: Completed=12 Interrupted=0 Timeout=0 failed=0 error=0")
        log.info("no error rows; 0 calls failed")

    call_stats(fetch_rates())


orders_call_stats()


@dag(schedule=None, start_date=START, catchup=False)
def orders_unsigned():
    """A task logs an ERROR record and returns normally."""

    @task
    def sign_off(n: int) -> None:
        log.error("revenue not signed off")

    sign_off(load())


orders_unsigned()
