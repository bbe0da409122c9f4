// The Sluice dashboard. Reads the admin API with the token given once (typed in, or passed in the
// URL fragment, which never leaves the browser) and draws it. Every value from the API is shown
// with textContent, never parsed as HTML: a tenant named <script> is shown as text.
(function () {
  "use strict";

  var POLL_MS = 2000;
  var HISTORY = 150;
  var STORE = "sluice.dashboard.token";
  var token = null;
  var timer = null;
  var last = null;
  var points = [[], [], [], []];
  var chart = null;

  function $(id) { return document.getElementById(id); }

  /** An element with text children only: strings become text nodes. */
  function el(tag, attrs) {
    var e = document.createElement(tag);
    if (attrs) {
      Object.keys(attrs).forEach(function (k) {
        if (k === "text") { e.textContent = attrs[k]; } else { e.setAttribute(k, attrs[k]); }
      });
    }
    for (var i = 2; i < arguments.length; i++) {
      var c = arguments[i];
      e.appendChild(typeof c === "string" ? document.createTextNode(c) : c);
    }
    return e;
  }

  function text(v) { return v === null || v === undefined ? "-" : String(v); }

  function cell(field, v) { return el("td", { "data-field": field, text: text(v) }); }

  function row(key, cells) {
    var tr = el("tr", { "data-key": key });
    cells.forEach(function (c) { tr.appendChild(cell(c[0], c[1])); });
    return tr;
  }

  function fill(tbody, rows, emptyText, columns) {
    tbody.replaceChildren();
    if (rows.length === 0) {
      var td = el("td", { colspan: String(columns), "class": "empty", text: emptyText });
      tbody.appendChild(el("tr", null, td));
      return;
    }
    rows.forEach(function (r) { tbody.appendChild(r); });
  }

  function body(sectionId, table) {
    return (table ? $(table) : $(sectionId)).querySelector("tbody");
  }

  function status(msg, bad) {
    var s = $("status");
    s.textContent = msg;
    s.className = bad ? "bad" : "";
  }

  function api(method, path, json) {
    var init = { method: method, headers: { "authorization": "Bearer " + token }, cache: "no-store",
      credentials: "omit", referrerPolicy: "no-referrer" };
    if (json !== undefined) {
      init.headers["content-type"] = "application/json";
      init.body = JSON.stringify(json);
    }
    return fetch(path, init).then(function (r) {
      return r.text().then(function (t) {
        var parsed = null;
        try { parsed = t ? JSON.parse(t) : null; } catch (e) { parsed = null; }
        return { status: r.status, json: parsed };
      });
    });
  }

  function errorText(r) {
    var e = r.json && r.json.error;
    return "HTTP " + r.status + (e ? " " + e.code + ": " + e.message : "");
  }

  // ---- the seven questions ----

  function drawTenants(s) {
    var key = $("tenant-sort").value;
    var rows = s.tenants.slice().sort(function (a, b) { return b[key] - a[key] || (a.tenant < b.tenant ? -1 : 1); });
    fill(body("q-tenants"), rows.slice(0, 15).map(function (t) {
      return row(t.tenant, [["tenant", t.tenant], ["rpm", t.rpm], ["input_tpm", t.input_tpm],
        ["output_tpm", t.output_tpm], ["cache_read_tpm", t.cache_read_tpm], ["rejected", t.rejected]]);
    }), "no requests in the last minute", 6);
  }

  function money(p) {
    return p ? "$" + p.spent_usd.toFixed(2) + " of $" + p.cap_usd.toFixed(2) : "-";
  }

  function drawSpend(s) {
    fill(body("spend"), (s.spend || []).map(function (x) {
      return row(x.scope, [["scope", x.scope], ["today", money(x.today)], ["month", money(x.month)]]);
    }), "no money caps (daily_cost, monthly_cost) on any scope", 3);
  }

  function drawProfiles(s) {
    fill(body("q-profiles"), (s.profiles || []).map(function (p) {
      var tr = row(p.profile, [["profile", p.profile], ["deployment", p.deployment], ["requests", p.requests],
        ["admitted", p.admitted], ["queued", p.queued], ["rejected", p.rejected], ["fallbacks", p.fallbacks]]);
      if (p.rejected > 0) { tr.className = "hot"; }
      return tr;
    }), "no profiles", 7);
  }

  // A decision in one line: what, by whom, why (the reason carries the figures' verdict).
  function decisionText(d) {
    if (!d) { return "-"; }
    var f = d.figures ? " [" + d.figures.attempts + " attempts, " + d.figures.throttled + " 429s]" : "";
    return d.action + " by " + d.by + ": " + d.reason + f;
  }

  function drawRollouts(s) {
    fill(body(null, "rollout-table"), (s.rollouts || []).map(function (r) {
      var tr = row(r.rollout, [["rollout", r.rollout], ["profile", r.profile], ["route", r.from + " \u2192 " + r.to],
        ["status", r.status], ["percent", r.percent + "%"], ["decision", decisionText(r.decisions[0])]]);
      if (r.status === "paused" || r.status === "rolled_back") { tr.className = "hot"; }
      return tr;
    }), "no rollouts", 6);
    fill(body(null, "warmup-table"), (s.warmups || []).map(function (w) {
      var rates = Object.keys(w.rates).map(function (k) { return k + " " + w.rates[k]; }).join(", ");
      var tr = row(w.warmup, [["warmup", w.warmup], ["tenant", w.tenant], ["status", w.status],
        ["grown_minutes", w.grown_minutes], ["rates", rates], ["decision", decisionText(w.decisions[0])]]);
      if (w.status === "paused") { tr.className = "hot"; }
      return tr;
    }), "no warm-ups", 6);
  }

  function drawBottlenecks(s) {
    var b = s.bottlenecks || [];
    $("bottleneck-top").textContent = b.length ? b[0].scope + " " + b[0].limiter : "none";
    fill(body("q-bottleneck"), b.map(function (d) {
      return row(d.scope + " " + d.limiter, [["scope", d.scope], ["limiter", d.limiter], ["rejected", d.rejected],
        ["queued", d.queued]]);
    }), "nothing refused or queued in the last minute", 4);
  }

  function drawEstimates(s) {
    fill(body("q-estimates"), (s.estimates || []).map(function (e) {
      return row(e.profile, [["profile", e.profile], ["compared", e.compared], ["estimated_input", e.estimated_input],
        ["actual_input", e.actual_input], ["input_ratio", e.input_ratio], ["estimated_output", e.estimated_output],
        ["actual_output", e.actual_output], ["output_ratio", e.output_ratio],
        ["input_off_by_25_percent", e.input_off_by_25_percent]]);
    }), "no answers with provider-reported usage in the last minute", 9);
  }

  function drawRetryAfter(s) {
    var ra = s.retry_after || { bounds_ms: [], series: [] };
    var head = $("retry-head");
    head.replaceChildren(el("th", { text: "provider" }), el("th", { text: "deployment" }), el("th", { text: "limiter" }));
    ra.bounds_ms.forEach(function (b) { head.appendChild(el("th", { text: "\u2264 " + (b < 1000 ? b + " ms" : b / 1000 + " s") })); });
    head.appendChild(el("th", { text: "longer" }));
    head.appendChild(el("th", { text: "no hint" }));
    head.appendChild(el("th", { text: "total" }));
    fill(body("q-retry-after"), ra.series.map(function (r) {
      var cells = [["provider", r.provider], ["deployment", r.deployment], ["limiter", r.limiter]];
      r.counts.forEach(function (c, i) { cells.push(["bucket_" + i, c]); });
      cells.push(["no_hint", r.no_hint]);
      cells.push(["total", r.total]);
      return row(r.provider + " " + r.deployment + " " + r.limiter, cells);
    }), "no provider 429s in the last minute", ra.bounds_ms.length + 6);
  }

  function drawCache(s) {
    fill(body("q-cache"), (s.cache_reads || []).map(function (c) {
      return row(c.deployment, [["deployment", c.deployment], ["uncounted_per_minute", c.uncounted_per_minute],
        ["counted_per_minute", c.counted_per_minute], ["input_limit_per_minute", c.input_limit_per_minute],
        ["headroom_fraction", c.headroom_fraction === undefined ? null : (c.headroom_fraction * 100).toFixed(1) + "%"]]);
    }), "no deployments", 5);
  }

  function perDimension(o) {
    if (!o) { return "-"; }
    var keys = Object.keys(o);
    return keys.length ? keys.map(function (k) { return k + " " + o[k]; }).join(", ") : "-";
  }

  function drawBorrowing(s) {
    var b = s.borrowing || { classes: [], tenants: [] };
    fill(body(null, "borrow-classes"), b.classes.map(function (c) {
      return row(c["class"], [["class", c["class"]], ["requests", c.requests], ["borrowed", c.borrowed]]);
    }), "no requests in the last minute", 3);
    fill(body(null, "borrow-tenants"), b.tenants.map(function (t) {
      return row(t.deployment + " " + t.tenant, [["deployment", t.deployment], ["tenant", t.tenant], ["weight", t.weight],
        ["borrowed_per_minute", perDimension(t.borrowed_per_minute)],
        ["guaranteed_per_minute", perDimension(t.guaranteed_per_minute)]]);
    }), "no shares in force", 5);
  }

  // ---- deployments ----

  function meter(b) {
    var frac = b.capacity > 0 ? Math.max(0, Math.min(1, b.available / b.capacity)) : 0;
    var bar = el("span", { "class": "bar" });
    var fillEl = el("span", { "class": "fill" + (frac < 0.1 ? " low" : "") });
    fillEl.style.width = (frac * 100).toFixed(1) + "%";
    bar.appendChild(fillEl);
    return bar;
  }

  function drawDeployments(s) {
    var cards = $("deployment-cards");
    cards.replaceChildren();
    (s.deployments || []).forEach(function (d) {
      var card = el("article", { "class": "card", "data-deployment": d.deployment });
      var pauseButton = el("button", { type: "button", "class": "pause", text: d.paused ? "Resume" : "Pause 60 s" });
      pauseButton.addEventListener("click", function () { togglePause(d); });
      card.appendChild(el("h3", null, el("span", { text: d.deployment }), " ",
        el("span", { "class": "kind", text: d.provider }), pauseButton));
      var facts = el("dl", { "class": "facts" });
      [["mode", d.mode], ["multipliers", perDimension(d.multipliers)], ["ramp_stage", d.ramp_stage],
        ["ramp_fraction", d.ramp_fraction], ["provider_429s", d.provider_429s], ["attempts", d.attempts],
        ["paused", d.paused ? d.paused.reason : "no"]].forEach(function (f) {
        facts.appendChild(el("dt", { text: f[0].replace(/_/g, " ") }));
        facts.appendChild(el("dd", { "data-field": f[0], text: text(f[1]) }));
      });
      card.appendChild(facts);
      var buckets = el("table", { "class": "buckets" },
        el("thead", null, el("tr", null, el("th", { text: "dimension" }), el("th", { text: "available" }),
          el("th", { text: "capacity" }), el("th", { text: "level" }), el("th", { text: "in flight" }))));
      var bb = el("tbody");
      d.buckets.forEach(function (b) {
        var tr = row(b.dimension, [["dimension", b.dimension], ["available", b.available], ["capacity", b.capacity]]);
        tr.appendChild(el("td", null, meter(b)));
        tr.appendChild(cell("in_flight", b.in_flight));
        bb.appendChild(tr);
      });
      buckets.appendChild(bb);
      card.appendChild(buckets);
      var classes = el("table", { "class": "classes" },
        el("thead", null, el("tr", null, el("th", { text: "class" }), el("th", { text: "queue depth" }),
          el("th", { text: "requests/min" }), el("th", { text: "queued" }), el("th", { text: "mean wait ms" }),
          el("th", { text: "max wait ms" }))));
      var cb = el("tbody");
      d.classes.forEach(function (c) {
        cb.appendChild(row(c["class"], [["class", c["class"]], ["queue_depth", c.queue_depth], ["requests", c.requests],
          ["queued", c.queued], ["mean_wait_ms", c.mean_wait_ms], ["max_wait_ms", c.max_wait_ms]]));
      });
      classes.appendChild(cb);
      card.appendChild(classes);
      cards.appendChild(card);
    });
  }

  function togglePause(d) {
    var scope = "deployment:" + d.deployment;
    var call = d.paused ? api("DELETE", "/admin/pauses/" + encodeURIComponent(scope))
      : api("POST", "/admin/pauses", { scope: scope, reason: "paused from the dashboard", for_seconds: 60 });
    call.then(function (r) {
      var out = $("action-result");
      if (r.status >= 200 && r.status < 300) {
        out.textContent = (d.paused ? "Resumed " : "Paused ") + scope + ".";
        out.className = "";
      } else {
        out.textContent = "Refused: " + errorText(r);
        out.className = "bad";
      }
      refresh();
    });
  }

  function drawPauses(s) {
    var list = $("pause-list");
    list.replaceChildren();
    if (!s.pauses.length) { list.appendChild(el("li", { "class": "empty", text: "nothing is paused" })); }
    s.pauses.forEach(function (p) {
      list.appendChild(el("li", { "data-key": p.scope }, el("strong", { text: p.scope }), " ",
        el("span", { "data-field": "reason", text: p.reason }), " ",
        el("span", { "class": "muted", text: p.until ? "until " + p.until : "until resumed" })));
    });
  }

  // ---- the chart ----

  function drawChart(s) {
    var throttled = 0, rejected = 0;
    (s.deployments || []).forEach(function (d) { throttled += d.provider_429s; });
    s.tenants.forEach(function (t) { rejected += t.rejected; });
    points[0].push(Date.now() / 1000);
    points[1].push(s.requests_per_minute === undefined ? null : s.requests_per_minute);
    points[2].push(rejected);
    points[3].push(throttled);
    if (points[0].length > HISTORY) { points.forEach(function (h) { h.shift(); }); }
    if (typeof uPlot === "undefined") { return; }
    if (!chart) {
      var width = Math.max(320, $("chart").clientWidth || 800);
      chart = new uPlot({ width: width, height: 180, series: [{},
        { label: "requests/min", stroke: "#2f6fdf", width: 2 },
        { label: "rejected/min", stroke: "#d98c1f", width: 2 },
        { label: "provider 429s/min", stroke: "#c8372d", width: 2 }],
        axes: [{}, { size: 60 }] }, points, $("chart"));
    } else {
      chart.setData(points);
    }
  }

  // ---- recent requests, explain, alerts (the explain helper's routes; "not available" without them) ----

  function unavailable(sectionId, shown) {
    $(sectionId).querySelector(".unavailable").hidden = !shown;
  }

  function drawRecent() {
    // The newest twenty of what the filter asks for: refusals scroll out of "all" under live traffic.
    api("GET", "/admin/requests/recent?limit=20&status=" + encodeURIComponent($("recent-filter").value)).then(function (r) {
      if (r.status === 404) { unavailable("recent", true); fill(body("recent"), [], "not available", 7); return; }
      unavailable("recent", false);
      var items = r.json ? (r.json.items || r.json.requests || []) : [];
      fill(body("recent"), items.map(function (q) {
        var tr = row(q.trace_id, [["time", q.at || q.received_at || q.time], ["trace_id", q.trace_id], ["tenant", q.tenant],
          ["profile", q.profile], ["class", q["class"]], ["status", q.status], ["decision", q.decision]]);
        tr.className = "clickable" + (q.status >= 400 ? " hot" : "");
        tr.addEventListener("click", function () { $("trace-id").value = q.trace_id; explain(q.trace_id); });
        return tr;
      }), "no recent requests", 7);
    });
  }

  function explain(traceId) {
    var out = $("explain-fields");
    api("GET", "/admin/explain/" + encodeURIComponent(traceId)).then(function (r) {
      out.replaceChildren();
      $("explain-sentence").textContent = "";
      if (r.status === 404 && r.json && r.json.error && r.json.error.code === "unknown_route") {
        unavailable("explain", true);
        return;
      }
      unavailable("explain", false);
      if (r.status !== 200 || !r.json) { $("explain-sentence").textContent = errorText(r); return; }
      var x = r.json;
      $("explain-sentence").textContent = text(x.sentence || x.summary || x.message);
      flatten("", x, out);
    });
  }

  function flatten(prefix, v, out) {
    if (v !== null && typeof v === "object" && !Array.isArray(v)) {
      Object.keys(v).forEach(function (k) { flatten(prefix ? prefix + "." + k : k, v[k], out); });
      return;
    }
    out.appendChild(el("dt", { text: prefix }));
    out.appendChild(el("dd", { "data-field": prefix, text: Array.isArray(v) ? JSON.stringify(v) : text(v) }));
  }

  function drawAlerts() {
    api("GET", "/admin/alerts").then(function (r) {
      var list = $("alert-list");
      list.replaceChildren();
      if (r.status === 404) { unavailable("alerts", true); return; }
      unavailable("alerts", false);
      var active = r.json ? (r.json.active || r.json.items || []) : [];
      var recent = r.json ? (r.json.recent || []) : [];
      if (!active.length) { list.appendChild(el("li", { "class": "empty", text: "no active alerts" })); }
      active.forEach(function (a) { list.appendChild(alertItem(a, "alert")); });
      recent.slice(0, 5).forEach(function (a) { list.appendChild(alertItem(a, "resolved")); });
    });
  }

  function alertItem(a, kind) {
    return el("li", { "class": kind, "data-key": text(a.name) + " " + text(a.scope) },
      el("strong", { text: text(a.name || a.alert) }), " ",
      el("span", { text: text(a.scope || a.subject || a.deployment) }), " ",
      el("span", { text: text(a.sentence || a.message || a.summary) }),
      kind === "resolved" ? el("span", { "class": "muted", text: " (resolved " + text(a.resolved_at) + ")" }) : "");
  }

  // ---- the loop ----

  function draw(s) {
    last = s;
    $("rpm-total").textContent = text(s.requests_per_minute);
    $("view").textContent = s.view;
    $("state-at").textContent = s.at;
    drawTenants(s);
    drawSpend(s);
    drawPauses(s);
    if (s.view === "all") {
      drawProfiles(s);
      drawBottlenecks(s);
      drawEstimates(s);
      drawRetryAfter(s);
      drawCache(s);
      drawBorrowing(s);
      drawDeployments(s);
      drawRollouts(s);
    }
    drawChart(s);
    document.body.setAttribute("data-updated", s.at);
  }

  function refresh() {
    if (!token) { return; }
    api("GET", "/admin/dashboard/state").then(function (r) {
      if (r.status !== 200) {
        status("Refused: " + errorText(r), true);
        if (r.status === 401) { forget(); }
        return;
      }
      draw(r.json);
      status("Live: updated every " + POLL_MS / 1000 + " s; last at " + r.json.at + ".", false);
      drawRecent();
      drawAlerts();
    }).catch(function (e) { status("The gateway did not answer: " + e.message, true); });
  }

  function connect(t) {
    token = t;
    try { sessionStorage.setItem(STORE, t); } catch (e) { /* private mode: kept in memory only */ }
    $("token").value = "";
    $("disconnect").hidden = false;
    if (timer) { clearInterval(timer); }
    refresh();
    timer = setInterval(refresh, POLL_MS);
  }

  function forget() {
    token = null;
    try { sessionStorage.removeItem(STORE); } catch (e) { /* nothing kept */ }
    if (timer) { clearInterval(timer); timer = null; }
    $("disconnect").hidden = true;
  }

  document.addEventListener("DOMContentLoaded", function () {
    $("connect").addEventListener("submit", function (ev) {
      ev.preventDefault();
      var t = $("token").value.trim();
      if (t) { connect(t); }
    });
    $("disconnect").addEventListener("click", function () { forget(); status("Token forgotten.", false); });
    $("tenant-sort").addEventListener("change", function () { if (last) { drawTenants(last); } });
    $("recent-filter").addEventListener("change", function () { if (token) { drawRecent(); } });
    $("explain-form").addEventListener("submit", function (ev) {
      ev.preventDefault();
      var id = $("trace-id").value.trim();
      if (id && token) { explain(id); }
    });
    // A token in the fragment (#token=...) is taken once and wiped from the address bar; the
    // fragment never reaches the server, so it is in no access log.
    var m = /(?:^#|&)token=([^&]+)/.exec(location.hash);
    if (m) {
      history.replaceState(null, "", location.pathname);
      connect(decodeURIComponent(m[1]));
    } else {
      var kept = null;
      try { kept = sessionStorage.getItem(STORE); } catch (e) { kept = null; }
      if (kept) { connect(kept); }
    }
  });
})();
