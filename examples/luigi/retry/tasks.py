"""A tiny Luigi pipeline: data/orders.csv -> out/totals.csv -> out/report.txt.

Every task writes under out/ (absent in a fresh copy). Run from this
directory as `python -m luigi --module tasks TASK --local-scheduler`.
"""
import csv
import logging
import os

import luigi

# Luigi's own logger: the one its default logging set-up prints
# ("LEVEL: message" on stderr), as its docs' examples log.
logger = logging.getLogger("luigi-interface")


class Orders(luigi.ExternalTask):
    """The input file, made by someone else."""

    path = luigi.Parameter(default="data/orders.csv")

    def output(self):
        return luigi.LocalTarget(self.path)


class Totals(luigi.Task):
    """Sums the amounts per customer, dropping orders below min_amount."""

    src = luigi.Parameter(default="data/orders.csv")
    min_amount = luigi.IntParameter(default=0)

    def requires(self):
        return Orders(path=self.src)

    def output(self):
        return luigi.LocalTarget("out/totals.csv")

    def run(self):
        totals = {}
        with self.input().open() as f:
            for row in csv.DictReader(f):
                amount = int(row["amount"])
                if amount >= self.min_amount:
                    totals[row["customer"]] = totals.get(row["customer"], 0) + amount
        with self.output().open("w") as f:
            f.write("customer,total\n")
            for customer, total in sorted(totals.items()):
                f.write(f"{customer},{total}\n")
        logger.info("totals: %d customers", len(totals))


class Report(luigi.Task):
    """The healthy end of the pipeline."""

    def requires(self):
        return Totals()

    def output(self):
        return luigi.LocalTarget("out/report.txt")

    def run(self):
        with self.input().open() as f:
            rows = list(csv.DictReader(f))
        with self.output().open("w") as f:
            f.write(f"{len(rows)} customers, {sum(int(r['total']) for r in rows)} in all\n")


class Broken(luigi.Task):
    """A step that raises."""

    def requires(self):
        return Totals()

    def output(self):
        return luigi.LocalTarget("out/broken.txt")

    def run(self):
        raise ValueError("amount column has a non-numeric value: 'n/a'")


class ReadMissing(luigi.Task):
    """A step that opens an input file that is not there."""

    def output(self):
        return luigi.LocalTarget("out/refunds.csv")

    def run(self):
        with open("data/refunds.csv") as f:
            data = f.read()
        with self.output().open("w") as f:
            f.write(data)


class Dated(luigi.Task):
    """A task with a required, typed parameter."""

    day = luigi.DateParameter()

    def output(self):
        return luigi.LocalTarget(f"out/dated-{self.day}.txt")

    def run(self):
        with self.output().open("w") as f:
            f.write(f"{self.day}\n")


class Warned(luigi.Task):
    """Succeeds after logging WARNING records."""

    def requires(self):
        return Totals()

    def output(self):
        return luigi.LocalTarget("out/warned.txt")

    def run(self):
        logger.warning("3 orders have no region, defaulting to 'unknown'")
        logger.warning("exchange rate for 2024-01-31 is stale (2 days old)")
        with self.output().open("w") as f:
            f.write("ok\n")


class CallStats(luigi.Task):
    """Healthy, and its messages name failures harmlessly."""

    def requires(self):
        return Totals()

    def output(self):
        return luigi.LocalTarget("out/call_stats.txt")

    def run(self):
        logger.info("call ended in Timeout, using cached value")
        try:
            raise TimeoutError("rate service did not answer in 2s")
        except TimeoutError as exc:
            logger.warning("caught TimeoutError (%s), retrying once", exc)
        logger.info("outcomes: Completed=12 Interrupted=0 Timeout=0 failed=0 error=0")
        logger.info("no error rows; 0 calls failed")
        with self.output().open("w") as f:
            f.write("ok\n")


class Unsigned(luigi.Task):
    """Logs an ERROR record and returns normally."""

    def requires(self):
        return Totals()

    def output(self):
        return luigi.LocalTarget("out/unsigned.txt")

    def run(self):
        logger.error("revenue not signed off")
        with self.output().open("w") as f:
            f.write("unsigned\n")


class Flaky(luigi.Task):
    """Fails on its first attempt in a fresh copy, succeeds on the second
    (its marker is under out/). Retried when the scheduler retries (see the
    retry project's luigi.cfg)."""

    retry_count = 2

    def output(self):
        return luigi.LocalTarget("out/flaky.txt")

    def run(self):
        os.makedirs("out", exist_ok=True)
        if not os.path.exists("out/flaky.attempted"):
            open("out/flaky.attempted", "w").close()
            raise ConnectionError("warehouse connection reset by peer")
        with self.output().open("w") as f:
            f.write("ok\n")
