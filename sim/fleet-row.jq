# One row of sim/fleet-report.sh's table from one `sluice sim --format json` run; "-" where a
# metric does not apply to the scenario (no interactive class, one tenant).
def pct(x; places): if x == null then "-" else ((x * 100 * places | round) / places | tostring) + "%" end;
def right(w): " " * ([w - length, 0] | max) + .;
def left(w): . + " " * ([w - length, 0] | max);
.runs[0] as $r | ($r.diagnostics // {}) as $d
| [ ($s | left(18)), ($n | left(8)),
    (pct($r.classes.interactive.success_rate; 100) | right(11)),
    (pct($r.provider_429_rate; 100) | right(8)),
    (pct($r.utilization; 10) | right(6)),
    (if $r.jain_index == null then "-" else ($r.jain_index * 1000 | round) / 1000 | tostring end | right(6)),
    ((($r.timeouts_queued | tostring) + " (" + pct($r.timeouts_queued / $r.requests; 100) + ")") | right(13)),
    (if $d.fleet_mode_disagreement_longest_ms == null then "-"
     else ($d.fleet_mode_disagreement_longest_ms | tostring) + " ms" end | right(13)),
    ([$d | to_entries[] | select(.key | test("^replica[0-9]+_attempts$")) | .value | tostring]
     | if length == 0 then "all" else join(" / ") end)
  ] | join(" | ")
