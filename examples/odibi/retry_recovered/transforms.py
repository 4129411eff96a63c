"""The custom transform of retry_recovered, loaded by Odibi from the config's
directory (transforms.py beside odibi.yaml) and registered by @transform.

flaky_once fails the first time it runs in a copy of the project and passes
on every later call: the first call leaves a marker file under out/ (which a
fresh copy does not have) and raises. Odibi's retry runs the node again, the
second attempt finds the marker and the node succeeds.
"""

import os

from odibi.registry import transform

MARKER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "out", "flaky_once.failed")


@transform
def flaky_once(context, current=None):
    if not os.path.exists(MARKER):
        os.makedirs(os.path.dirname(MARKER), exist_ok=True)
        with open(MARKER, "w") as f:
            f.write("the first attempt failed here\n")
        raise ConnectionError("orders feed not ready yet (fails on the first attempt only)")
    return context.df
