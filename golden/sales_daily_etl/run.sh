#!/bin/sh
# Daily sales ETL: totals per region. Must always succeed.
set -eu
awk -F, 'NR > 1 { total[$2] += $3; rows++ }
  END {
    for (r in total) printf "region=%s total=%.2f\n", r, total[r] | "sort"
    close("sort")
    printf "rows=%d\nStatus: SUCCESS\n", rows
  }' sales.csv
