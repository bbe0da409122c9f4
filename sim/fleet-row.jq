# One row of sim/fleet-report.sh's table from one `sluice sim --format json` run; "-" where a
# metric does not apply to the scenario (no interactive class, one tenant).
def fixed(d): (. * pow(10; d) | round) as $v | pow(10; d) as $p
  | (($v / $p | floor) | tostring) + (if d == 0 then "" else "." + ((($v % $p) + $p) | tostring | .[1:]) end);
def pct(x; d): if x == null then "-" else (x * 100 | fixed(d)) + "%" end;
def right(w): " " * ([w - length, 0] | max) + .;
def left(w): . + " " * ([w - length, 0] | max);
.runs[0] as $r | ($r.diagnostics // {}) as $d
| [ ($s | left(18)), ($n | left(8)),
    (pct($r.classes.interactive.success_rate; 2) | right(11)),
    (pct($r.provider_429_rate; 2) | right(8)),
    (pct($r.utilization; 1) | right(6)),
    (if $r.jain_index == null then "-" else $r.jain_index | fixed(3) end | right(6)),
    ((($r.timeouts_queued | tostring) + " (" + pct($r.timeouts_queued / $r.requests; 2) + ")") | right(13)),
    (if $d.fleet_mode_disagreement_longest_ms == null then "-"
     else ($d.fleet_mode_disagreement_longest_ms | tostring) + " ms" end | right(13)),
    ([$d | to_entries[] | select(.key | test("^replica[0-9]+_attempts$")) | .value | tostring]
     | if length == 0 then "all" else join(" / ") end)
  ] | join(" | ")
