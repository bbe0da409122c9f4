#!/usr/bin/env bash
# Regenerates the provider-model sweep in docs/SIMULATION.md: every bundled scenario in its short
# form against members 1-20 of the provider family, none and sluice in the same runs. Replaces what
# lies between the sweep markers; the prose is kept. Runs for a long while (tens of minutes on a
# busy 2-core machine): never beside another sweep.
# Usage (from anywhere): sim/sweep-report.sh [N]     (N members, default 20)
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
n=${1:-20}
out=$(mktemp)
trap 'rm -f "$out"' EXIT
bin/sluice sim --sweep "$n" --short --format table > "$out"
doc=docs/SIMULATION.md
awk -v table="$out" '
  /<!-- sweep:begin -->/ { print; print "```"; while ((getline line < table) > 0) print line; close(table); print "```"; skip = 1; next }
  /<!-- sweep:end -->/ { skip = 0 }
  !skip { print }
' "$doc" > "$doc.new"
mv "$doc.new" "$doc"
echo "updated $doc"
