"""The flow script imports a module of the project that is not there."""
from prefect import flow

from orders_helpers import parse_amount  # noqa: F401  (no such module)


@flow
def orders_helpers_flow() -> None:
    pass


if __name__ == "__main__":
    orders_helpers_flow()
