#!/usr/bin/env bash
# Regenerates the comparison in docs/SIMULATION.md and docs/BENCHMARKS.md: every bundled scenario,
# every strategy, full length, default seeds. Replaces what lies between the table markers; the
# prose is kept.
# Usage (from anywhere): sim/simulation-report.sh
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
out=$(mktemp)
trap 'rm -f "$out"' EXIT
bin/sluice sim --scenario all --strategy all --format table > "$out"
for doc in docs/SIMULATION.md docs/BENCHMARKS.md; do
  awk -v table="$out" '
    /<!-- table:begin -->/ { print; print "```"; while ((getline line < table) > 0) print line; close(table); print "```"; skip = 1; next }
    /<!-- table:end -->/ { skip = 0 }
    !skip { print }
  ' "$doc" > "$doc.new"
  mv "$doc.new" "$doc"
  echo "updated $doc"
done
