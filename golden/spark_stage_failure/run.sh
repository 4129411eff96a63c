#!/bin/sh
# A job whose driver logs a stage failure but exits 0.
echo "INFO DAGScheduler: ResultStage 3 failed"
echo "org.apache.spark.SparkException: Job aborted due to stage failure: Task 0 in stage 3.0 failed 4 times" >&2
exit 0
