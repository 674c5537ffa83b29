#!/bin/sh
# A per-move program in a few lines of shell (kgpc's convention, docs/protocols.md): reads the
# board (size; the stores; the mover's pits; the opponent's pits) and prints the 0-indexed first
# pit of its own that holds seeds.
read -r size
read -r stores
read -r mine
i=0
for seeds in $mine; do
    if [ "$seeds" -gt 0 ]; then echo "$i"; exit 0; fi
    i=$((i + 1))
done
exit 1
