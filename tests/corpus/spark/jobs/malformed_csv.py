"""Reads a CSV in FAILFAST mode with a row that does not parse: the JVM task
fails and the job aborts (org.apache.spark.SparkException)."""
import os

from pyspark.sql import SparkSession

CSV = """region,amount
north,10
south,n/a
"""

os.makedirs("data", exist_ok=True)
with open("data/sales.csv", "w") as f:
    f.write(CSV)
spark = SparkSession.builder.master("local[1]").appName("malformed_csv").getOrCreate()
df = (
    spark.read.option("header", True)
    .option("mode", "FAILFAST")
    .schema("region STRING, amount INT")
    .csv("data/sales.csv")
)
print(f"total amount: {df.groupBy().sum('amount').collect()[0][0]}")
spark.stop()
