#!/bin/sh
# Fails with a plain exit code and no known pattern.
echo "reading partition 7 of 8" 
echo "partition 7 missing from the landing zone" >&2
exit 3
