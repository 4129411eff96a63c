"""A task mapped over an empty list: no task runs."""
from prefect import flow, task


@task
def load_partition(path: str) -> int:
    return 0


@flow
def orders_partitions(paths: list[str] = []) -> None:
    load_partition.map(paths).wait()


if __name__ == "__main__":
    orders_partitions()
