#!/bin/sh
# Writes its snapshot next to its input: runs with isolation = "copy",
# so the golden project itself is never modified.
set -eu
mkdir -p out
awk '$2 > 0 { print $1 }' stock.txt > out/in_stock.txt
echo "in stock: $(wc -l < out/in_stock.txt | tr -d ' ') items"
