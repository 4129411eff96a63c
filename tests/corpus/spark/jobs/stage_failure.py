"""A UDF that raises ZeroDivisionError on one row: the stage fails, the job aborts."""
from pyspark.sql import SparkSession, functions as F
from pyspark.sql.types import DoubleType

spark = SparkSession.builder.master("local[1]").appName("stage_failure").getOrCreate()
df = spark.createDataFrame([("a", 10, 2), ("b", 6, 0), ("c", 9, 3)], ["id", "amount", "units"])


@F.udf(returnType=DoubleType())
def unit_price(amount, units):
    return amount / units


df.withColumn("unit_price", unit_price("amount", "units")).show()
spark.stop()
