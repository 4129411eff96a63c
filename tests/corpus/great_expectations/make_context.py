"""Writes the GX file context (gx/) of projects/orders: run from an empty
directory holding the project's data/, with the venv of
.ci/great_expectations-venv, then copy gx/ (without gx/uncommitted/) into
projects/orders. The recordings never run this: they run the project's
scripts on the gx/ it wrote.

    python make_context.py
"""
import great_expectations as gx
import great_expectations.expectations as gxe

context = gx.get_context(mode="file", project_root_dir=".")
files = context.data_sources.add_pandas_filesystem(name="shop_files", base_directory="data")
orders = files.add_csv_asset(name="orders").add_batch_definition_path(name="orders_csv", path="orders.csv")
calls = files.add_csv_asset(name="calls").add_batch_definition_path(name="calls_csv", path="calls.csv")


def checkpoint(name, batch, expectations):
    suite = context.suites.add(gx.ExpectationSuite(name=f"{name}_suite"))
    for expectation in expectations:
        suite.add_expectation(expectation)
    validation = context.validation_definitions.add(
        gx.ValidationDefinition(name=f"{name}_validation", data=batch, suite=suite)
    )
    context.checkpoints.add(gx.Checkpoint(name=f"{name}_checkpoint", validation_definitions=[validation]))


# Passes.
checkpoint("orders", orders, [
    gxe.ExpectColumnValuesToNotBeNull(column="customer"),
    gxe.ExpectColumnValuesToBeBetween(column="amount", min_value=0, max_value=1000),
    gxe.ExpectColumnValuesToBeUnique(column="order_id"),
])
# Fails: one amount is above 100.
checkpoint("amounts", orders, [
    gxe.ExpectColumnValuesToBeBetween(column="amount", min_value=0, max_value=100),
])
# Raises while it runs: the column is not in the data.
checkpoint("regions", orders, [
    gxe.ExpectColumnValuesToNotBeNull(column="region"),
])
# No expectation: nothing is checked.
checkpoint("empty", orders, [])
# Passes with one unexpected value allowed by `mostly`.
checkpoint("mostly", orders, [
    gxe.ExpectColumnValuesToBeBetween(column="amount", min_value=10, max_value=1000, mostly=0.7),
])
# Passes; its columns and values name failures harmlessly.
checkpoint("calls", calls, [
    gxe.ExpectColumnDistinctValuesToBeInSet(
        column="outcome", value_set=["Completed", "Timeout", "Interrupted", "failed"]
    ),
    gxe.ExpectColumnValuesToBeBetween(column="error_count", min_value=0, max_value=0),
    gxe.ExpectColumnValuesToNotBeNull(column="timeout_seconds"),
])
