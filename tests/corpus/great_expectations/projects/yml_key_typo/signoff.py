"""Runs the orders checkpoint (it passes), then logs an ERROR record for a
sign-off that is missing, and exits 0."""
import logging
import sys

import great_expectations as gx

logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
logging.getLogger("great_expectations").setLevel(logging.WARNING)
log = logging.getLogger("signoff")

context = gx.get_context(mode="file")
result = context.checkpoints.get("orders_checkpoint").run()
log.info("orders_checkpoint: success=%s", result.success)
log.error("revenue not signed off")
sys.exit(0 if result.success else 1)
