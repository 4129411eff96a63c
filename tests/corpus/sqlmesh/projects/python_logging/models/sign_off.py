"""A Python model that logs WARNING and ERROR records and returns normally:
SQLMesh sends Python logging to its log file (logs/), not to the console."""
import logging
import typing as t
from datetime import datetime

import pandas as pd
from sqlmesh import ExecutionContext, model


@model("shop.sign_off", columns={"period": "text", "signed_off": "boolean"})
def execute(
    context: ExecutionContext, start: datetime, end: datetime, execution_time: datetime, **kwargs: t.Any
) -> pd.DataFrame:
    # Made here: a module-level logger cannot be serialized with the model.
    log = logging.getLogger("shop.sign_off")
    log.warning("exchange rate for 2024-01-31 is stale (2 days old)")
    log.error("revenue not signed off")
    return pd.DataFrame({"period": ["2024-01"], "signed_off": [False]})
