"""Runs a checkpoint and prints its result, without looking at whether it
succeeded: the script exits 0 even when expectations fail.

    python report_checkpoint.py [CHECKPOINT]
"""
import sys

import great_expectations as gx

context = gx.get_context(mode="file")
result = context.checkpoints.get(sys.argv[1] if len(sys.argv) > 1 else "orders_checkpoint").run()
print(result.describe())
