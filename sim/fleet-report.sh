#!/usr/bin/env bash
# Regenerates the one-versus-three-replicas table in docs/SIMULATION.md (between the fleet
# markers): each listed scenario in its short form, strategy sluice, on 1 and on 3 replicas sharing
# one Redis (each replica its own governor, queue, adaptive control and fleet view; three replicas
# behind a proxy spreading arrivals 1/2, 1/3, 1/6). Needs a Redis (default the machine's) and jq.
# Usage (from anywhere): sim/fleet-report.sh [REDIS_URI] [SCENARIO ...]   (SLUICE=... to run another command than bin/sluice)
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
redis=${1:-redis://127.0.0.1:6379}
shift || true
scenarios=("$@")
[[ ${#scenarios[@]} -gt 0 ]] || scenarios=(noisy-neighbour weighted-tenants limit-cut provider-faults)
out=$(mktemp)
trap 'rm -f "$out"' EXIT
{
  echo '```'
  printf '%-18s | %-8s | %-11s | %-8s | %-6s | %-6s | %-13s | %-13s | %s\n' scenario replicas "interactive" "429 rate" util jain "timed out (q)" "modes differ" "attempts per replica"
  echo '-------------------|----------|-------------|----------|--------|--------|---------------|---------------|---------------------'
  for s in "${scenarios[@]}"; do
    for n in 1 3; do
      ${SLUICE:-bin/sluice} sim --scenario "$s" --strategy sluice --short --replicas "$n" --redis "$redis" --format json \
        | jq -r --arg s "$s" --arg n "$n" -f sim/fleet-row.jq
    done
  done
  echo "  reproduce one row: bin/sluice sim --scenario NAME --strategy sluice --short --replicas N --redis $redis"
  echo '```'
} > "$out"
doc=docs/SIMULATION.md
awk -v table="$out" '
  /<!-- fleet:begin -->/ { print; while ((getline line < table) > 0) print line; close(table); skip = 1; next }
  /<!-- fleet:end -->/ { skip = 0 }
  !skip { print }
' "$doc" > "$doc.new"
mv "$doc.new" "$doc"
echo "updated $doc"
