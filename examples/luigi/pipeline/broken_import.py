"""A task module whose own import fails: it imports a helper module of the
project that is not there."""
import luigi

from order_helpers import parse_amount  # noqa: F401  (no such module)


class Report(luigi.Task):
    def run(self):
        pass
