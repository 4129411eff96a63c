"""Runs a checkpoint of the GX file context in gx/ and exits 1 when it did
not succeed (GX's checkpoint.run() returns a failed result; it does not
raise).

    python run_checkpoint.py [CHECKPOINT] [--full]

CHECKPOINT defaults to orders_checkpoint. The result is printed as
result.describe() (--full: the whole CheckpointResult). Expectations that
passed with unexpected values (`mostly`) are logged as WARNING records.
"""
import logging
import sys

import great_expectations as gx

logging.basicConfig(level=logging.WARNING, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
log = logging.getLogger("run_checkpoint")
log.setLevel(logging.INFO)

args = [a for a in sys.argv[1:] if not a.startswith("--")]
name = args[0] if args else "orders_checkpoint"

context = gx.get_context(mode="file")
checkpoint = context.checkpoints.get(name)
log.info("running checkpoint %s", name)
result = checkpoint.run()
print(result if "--full" in sys.argv else result.describe())
for validation in result.run_results.values():
    for r in validation.results:
        unexpected = (r.result or {}).get("unexpected_count") or 0
        if r.success and unexpected:
            log.warning(
                "%s(%s) passed with %d unexpected value(s)",
                r.expectation_config.type,
                r.expectation_config.kwargs.get("column"),
                unexpected,
            )
log.info("checkpoint %s: success=%s", name, result.success)
sys.exit(0 if result.success else 1)
