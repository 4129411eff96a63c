"""A Python model importing a module of the project that is not there."""
import typing as t
from datetime import datetime

import pandas as pd
from sqlmesh import ExecutionContext, model

from shop_helpers import region_of  # noqa: F401  (no such module)


@model("shop.regions", columns={"customer": "text", "region": "text"})
def execute(
    context: ExecutionContext, start: datetime, end: datetime, execution_time: datetime, **kwargs: t.Any
) -> pd.DataFrame:
    return pd.DataFrame({"customer": ["acme"], "region": ["north"]})
