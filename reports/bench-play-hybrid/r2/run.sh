#!/bin/bash
# two binaries, alternating chunks of 2 games with the same seed
cd /tmp/pb/r2
for seed in 1 2 3 4 5; do
  for b in A B; do
    echo "== $b seed $seed $(date +%T) load $(cut -d' ' -f1-3 /proc/loadavg)" >> log
    /tmp/dab-$b bench --suite play --play-boards '' --exact-boards '' --hybrid-boards 5x5 --games 2 --seed $seed --review-seconds 10 -o $b-$seed.csv >> log 2>&1
  done
done
echo "done $(date +%T)" >> log
