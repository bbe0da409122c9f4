#!/usr/bin/env bash
# Before/after in one session: the load harness on two checkouts (each with bench/target/benchmarks.jar
# built), alternating before, after, before, after. Reports go to /tmp/harness-<n>-<side>.md.
# Usage: bench/scripts/before-after.sh BEFORE_DIR AFTER_DIR
set -euo pipefail
before=${1:?before checkout}; after=${2:?after checkout}
java=${JAVA_HOME:+$JAVA_HOME/bin/}java
i=0
for side in before after before after; do
  i=$((i+1))
  d=$before; [ "$side" = after ] && d=$after
  echo "=== $side $(git -C "$d" rev-parse --short HEAD) $(date +%T) load $(cut -d' ' -f1 /proc/loadavg)"
  "$java" -cp "$d/bench/target/benchmarks.jar" dev.sluice.bench.load.LoadHarness \
    --targets direct,nginx,sluice --connections 64 --modes plain,stream --rate max,5000 \
    --rounds 2 --warmup 2 --seconds 5 --prewarm 10 --out "/tmp/harness-$i-$side.md"
done
