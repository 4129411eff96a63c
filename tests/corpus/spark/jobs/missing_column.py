"""Selects a column the data does not have: AnalysisException [UNRESOLVED_COLUMN...]."""
from pyspark.sql import SparkSession

spark = SparkSession.builder.master("local[1]").appName("missing_column").getOrCreate()
df = spark.createDataFrame([("a", 10), ("b", 6)], ["id", "amount"])
df.select("id", "amount_usd").show()
spark.stop()
