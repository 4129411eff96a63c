"""Healthy job: read a small CSV, aggregate, write and print the result."""
import os
import sys

from pyspark.sql import SparkSession, functions as F

CSV = """region,amount
north,10
south,5
north,7
east,3
south,2
"""


def main():
    os.makedirs("data", exist_ok=True)
    with open("data/sales.csv", "w") as f:
        f.write(CSV)
    spark = SparkSession.builder.master("local[1]").appName("healthy").getOrCreate()
    df = spark.read.option("header", True).option("inferSchema", True).csv("data/sales.csv")
    totals = df.groupBy("region").agg(F.sum("amount").alias("total")).orderBy("region")
    totals.write.mode("overwrite").csv("out/totals", header=True)
    totals.show()
    print(f"wrote {totals.count()} regions to out/totals")
    spark.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
