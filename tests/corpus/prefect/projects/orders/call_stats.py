"""Healthy; its records name failures harmlessly, and a task retried after a
TimeoutError succeeds."""
import os

from prefect import flow, get_run_logger, task


@task(retries=1, retry_delay_seconds=0)
def fetch_rates() -> float:
    os.makedirs("out", exist_ok=True)
    if not os.path.exists("out/rates.attempted"):
        open("out/rates.attempted", "w").close()
        raise TimeoutError("rate service did not answer in 2s")
    return 1.08


@task
def call_stats() -> None:
    logger = get_run_logger()
    logger.info("call ended in Timeout, using cached value")
    try:
        raise TimeoutError("rate service did not answer in 2s")
    except TimeoutError as exc:
        logger.warning("caught TimeoutError (%s), retrying once", exc)
    logger.info("outcomes: Completed=12 Interrupted=0 Timeout=0 failed=0 error=0")
    logger.info("no error rows; 0 calls failed")


@flow
def orders_call_stats() -> None:
    fetch_rates()
    call_stats()


if __name__ == "__main__":
    orders_call_stats()
