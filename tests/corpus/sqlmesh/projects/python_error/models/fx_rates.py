"""A Python model raising while it runs."""
import typing as t
from datetime import datetime

import pandas as pd
from sqlmesh import ExecutionContext, model


@model("shop.fx_rates", columns={"currency": "text", "rate": "double"})
def execute(
    context: ExecutionContext, start: datetime, end: datetime, execution_time: datetime, **kwargs: t.Any
) -> pd.DataFrame:
    raise ValueError("rate column has a non-numeric value: 'n/a'")
