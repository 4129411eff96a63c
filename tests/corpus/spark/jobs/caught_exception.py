"""Catches the job's failure, logs it and exits 0 anyway: a false green."""
import logging
import sys

from pyspark.sql import SparkSession, functions as F
from pyspark.sql.types import DoubleType

logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
log = logging.getLogger("nightly_job")

spark = SparkSession.builder.master("local[1]").appName("caught_exception").getOrCreate()
df = spark.createDataFrame([("a", 10, 2), ("b", 6, 0)], ["id", "amount", "units"])


@F.udf(returnType=DoubleType())
def unit_price(amount, units):
    return amount / units


try:
    rows = df.withColumn("unit_price", unit_price("amount", "units")).collect()
    log.info("computed %d rows", len(rows))
except Exception as exc:  # the bug: swallowed, the job still exits 0
    log.error("nightly job failed: %s", exc)
    print(f"job failed: {exc}")
spark.stop()
sys.exit(0)
