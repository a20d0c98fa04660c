// The script of the HTML report (index.html beside it): renders `window.wfReport`, which
// report-data.js sets, with DOM calls only; the run's data reaches the page through textContent
// and attributes, never through HTML parsing. Plain ES2020, no dependency, a classic script, so
// the page works from disk (file://) as well as from `wf show-report`.
"use strict";
(function () {
  var data = window.wfReport;
  var app = document.getElementById("app");
  if (!data) { app.textContent = "report-data.js is missing or broken: run wf run again."; return; }

  /** An element with attributes and children (strings become text nodes). */
  function h(tag, attrs) {
    var el = document.createElement(tag);
    for (var name in attrs || {}) {
      var value = attrs[name];
      if (value === undefined || value === null || value === false) continue;
      if (name === "text") el.textContent = String(value);
      else el.setAttribute(name, String(value));
    }
    function add(child) {
      if (child === undefined || child === null || child === false) return;
      if (Array.isArray(child)) child.forEach(add);
      else el.append(child);
    }
    for (var i = 2; i < arguments.length; i++) add(arguments[i]);
    return el;
  }
  function ms(n) {
    if (typeof n !== "number") return "";
    if (n < 1000) return n + " ms";
    if (n < 60000) return (n / 1000).toFixed(1) + " s";
    return Math.floor(n / 60000) + " min " + Math.round((n % 60000) / 1000) + " s";
  }
  function json(value) { return h("pre", { text: JSON.stringify(value, null, 2) }); }
  var MARK = { passed: "✔", succeeded: "✔", flaky: "±", failed: "✘", cancelled: "■", interrupted: "■", skipped: "○" };
  function status(s) { return h("span", { class: s, text: (MARK[s] || "") + " " + s }); }

  function stepError(step) {
    var e = step.error;
    var details = e.details && typeof e.details === "object" ? e.details : {};
    var candidates = Array.isArray(details.candidates) ? details.candidates : [];
    return h("div", { class: "error", "data-testid": "step-error" },
      h("div", null, h("strong", { text: e.code }), " ", h("span", { class: "message", text: e.message })),
      candidates.length ? h("div", null, h("span", { class: "dim", text: "Closest candidates:" }),
        h("ul", null, candidates.map(function (c) { return h("li", { text: (c.name ? JSON.stringify(c.name) : "(no name)") + (c.role ? " (" + c.role + ")" : "") }); }))) : null,
      step.pageUrl ? h("div", null, h("span", { class: "dim", text: "Page: " }), h("code", { class: "page-url", text: step.pageUrl })) : null);
  }

  function stepRows(step, artifacts, depth) {
    var shot = artifacts && artifacts.screenshots ? artifacts.screenshots[step.index] : undefined;
    // "~" when the service estimated a count (the provider reported none, or junk); calls are HTTP requests.
    var usage = step.usage ? (step.usage.estimated ? "~" : "") + step.usage.totalTokens + " (" + step.usage.promptTokens + " + " + step.usage.completionTokens + ")" +
      (step.usage.calls > 1 ? " in " + step.usage.calls + " calls" : "") : "";
    var how = [step.interpreter, step.replayed ? "replayed" : "", step.healed ? "healed" : ""].filter(Boolean).join(", ");
    var row = h("tr", { "data-step": step.index, "data-step-status": step.status },
      h("td", { class: "num", text: step.index }),
      h("td", { text: step.type }),
      h("td", { class: depth ? "in-group" : null, style: depth ? "padding-left: " + (6 + 18 * depth) + "px" : null }, h("div", { text: step.instruction }), step.resolved && step.resolved !== step.instruction ? h("div", { class: "dim", text: "→ " + step.resolved }) : null),
      h("td", null, status(step.status), step.attempts > 1 ? h("div", { class: "dim", text: step.attempts + " attempts" }) : null),
      h("td", { class: "num", text: ms(step.durationMs) }),
      h("td", { text: how }),
      h("td", { class: "num", text: usage }),
      h("td", null, step.callSite ? h("code", { text: step.callSite }) : null),
      h("td", null, shot && step.status !== "failed" ? h("a", { href: shot, target: "_blank" }, h("img", { class: "thumb", src: shot, alt: "after step " + step.index })) : null));
    var extra = [];
    if (step.answer !== undefined) extra.push(h("div", null, h("span", { class: "dim", text: "Answer" }), json(step.answer)));
    if (step.check) extra.push(h("div", { class: "check " + (step.check.holds ? "succeeded" : "failed"), "data-testid": "check" },
      h("strong", { text: (step.check.holds ? "✓ holds" : "✗ does not hold") + (step.check.soft ? " (soft)" : "") }), " ",
      h("span", { class: "reason", text: step.check.reason }),
      step.check.evidence ? h("div", null, h("span", { class: "dim", text: "Seen: " }), h("q", { class: "evidence", text: step.check.evidence })) : null));
    var files = artifacts && artifacts.downloads ? artifacts.downloads.filter(function (d) { return d.step === step.index; }) : [];
    if (files.length) extra.push(h("div", { class: "downloads", "data-testid": "downloads" }, h("span", { class: "dim", text: "Downloaded: " }),
      files.map(function (d, i) { return h("span", null, i ? ", " : "", h("a", { href: d.path, download: d.name, text: d.name }), h("span", { class: "dim", text: " (" + d.sizeBytes + " bytes, " + d.mimeType + ")" })); })));
    if (step.status === "failed" && step.error) extra.push(stepError(step));
    if (step.status === "failed" && shot) extra.push(h("a", { href: shot, target: "_blank" }, h("img", { class: "shot failed-shot", src: shot, alt: "the page when step " + step.index + " failed" })));
    if (!extra.length) return [row];
    return [row, h("tr", { class: "step-detail" }, h("td"), h("td", { colspan: 8 }, extra))];
  }

  /**
   * The attempt's table rows in order: each step() group opens with a title row (its status,
   * duration and call site) and its steps are indented under it; log() lines sit where they were
   * logged.
   */
  function attemptRows(r, artifacts) {
    var groups = {};
    (r.groups || []).forEach(function (g) { groups[g.id] = g; });
    function chainOf(id) { var chain = []; for (; id !== undefined && groups[id]; id = groups[id].parentId) chain.unshift(id); return chain; }
    var open = [];
    var rows = [];
    function enter(groupId) {
      var chain = chainOf(groupId);
      var kept = 0;
      while (kept < open.length && open[kept] === chain[kept]) kept++;
      open = open.slice(0, kept);
      chain.slice(kept).forEach(function (id) {
        var g = groups[id];
        var depth = chainOf(g.parentId).length;
        rows.push(h("tr", { class: "group-row", "data-group": g.id, "data-group-status": g.status },
          h("td"),
          h("td", { text: "step" }),
          h("td", { style: "padding-left: " + (6 + 18 * depth) + "px" }, h("strong", { class: "group-title", text: "▸ " + g.title }),
            g.error ? h("div", { class: "error" }, h("strong", { text: g.error.code }), " ", h("span", { class: "message", text: g.error.message })) : null),
          h("td", null, status(g.status)),
          h("td", { class: "num", text: ms(g.durationMs) }),
          h("td"), h("td"),
          h("td", null, g.callSite ? h("code", { text: g.callSite }) : null),
          h("td")));
        open.push(id);
      });
      return chain.length;
    }
    var logs = (r.logs || []).slice();
    function flushLogs(afterSteps) {
      while (logs.length && logs[0].afterSteps <= afterSteps) {
        var line = logs.shift();
        var depth = enter(line.groupId);
        rows.push(h("tr", { class: "log-row" }, h("td"), h("td", { class: "dim", text: "log" }),
          h("td", { colspan: 7, style: "padding-left: " + (6 + 18 * depth) + "px" }, h("span", { class: "log-message", text: line.message }),
            line.data ? h("code", { class: "dim", text: " " + JSON.stringify(line.data) }) : null)));
      }
    }
    r.steps.forEach(function (s, i) {
      flushLogs(i);
      var depth = enter(s.groupId);
      rows.push(stepRows(s, artifacts, depth));
    });
    flushLogs(Infinity);
    return rows;
  }


  /** The trace's link: the trace viewer on it when `wf show-report` serves the page, else the zip itself. */
  function traceLinks(trace) {
    var link = h("a", { href: trace, class: "trace", text: "Playwright trace" });
    var hint = h("span", null, h("span", { class: "dim", text: " open with " }), h("code", { text: "npx wf show-trace " + (data.reportDir ? data.reportDir + "/" : "") + trace }));
    var zip = h("a", { href: trace, class: "trace-zip dim", text: "download trace.zip", hidden: "" });
    traceLinkSetters.push(function () {
      link.setAttribute("href", "trace/index.html?trace=" + encodeURIComponent(new URL(trace, location.href).href));
      link.textContent = "Open the Playwright trace";
      hint.hidden = true;
      zip.hidden = false;
    });
    return h("p", null, link, hint, " ", zip);
  }
  var traceLinkSetters = [];

  function attemptView(attempt, i, count) {
    var r = attempt.record;
    var a = attempt.artifacts;
    var title = (count > 1 ? (i === 0 ? "Attempt 1" : "Retry #" + i) + " · " : "") + r.status + " · " + ms(r.durationMs);
    var runError = r.error && !(r.error.stepIndex !== undefined && r.steps.some(function (s) { return s.index === r.error.stepIndex && s.error; }));
    return h("section", { class: "attempt" },
      h("h3", { class: r.status, text: title }),
      a && a.trace ? traceLinks(a.trace) : null,
      runError ? h("div", { class: "error" }, h("strong", { text: r.error.code }), " ", h("span", { class: "message", text: r.error.message }), r.error.callSite ? h("div", null, h("code", { text: r.error.callSite })) : null) : null,
      r.params && Object.keys(r.params).length ? h("details", null, h("summary", { text: "Params" }), json(r.params)) : null,
      r.steps.length ? h("table", null,
        h("thead", null, h("tr", null, ["#", "Type", "Instruction", "Status", "Time", "By", "Tokens", "Call site", "Screenshot"].map(function (t) { return h("th", { text: t }); }))),
        h("tbody", null, attemptRows(r, a))) : h("p", { class: "dim", text: "No steps ran." }),
      r.output !== undefined ? h("details", null, h("summary", { text: "Output" }), json(r.output)) : null,
      modelLine(r),
      r.lockChanges && r.lockChanges.length ? lockChangesView(r.lockChanges, a) : null);
  }

  /** Model calls and tokens, against the run's budget when it had one. */
  function modelLine(r) {
    var calls = r.usage ? r.usage.calls : 0;
    if (!r.usage && r.maxModelCalls === undefined) return null;
    var budget = r.maxModelCalls !== undefined ? " of a budget of " + r.maxModelCalls : "";
    return h("p", { class: "dim model-usage", text: "Model: " + (r.usage ? r.usage.models.join(", ") + " · " + (r.usage.estimated ? "~" : "") + r.usage.totalTokens + " tokens in " : "") + calls + " call" + (calls === 1 ? "" : "s") + budget + (r.usage && r.usage.estimated ? " (some counts estimated: the provider reported none or junk)" : "") });
  }

  var LOCK_FIELDS = ["instruction", "role", "name", "locator"];
  function fieldOf(action, field) {
    if (!action) return undefined;
    return field === "instruction" ? action.instruction : action.element ? action.element[field] : undefined;
  }
  /** What the run wrote to its action lock: per entry, the old and new value of each field that differs. */
  function lockChangesView(changes, artifacts) {
    return h("section", { class: "lock-changes" },
      h("h4", { text: "Action lock changes (" + changes.length + ")" }),
      changes.map(function (c) {
        var rows = [];
        var o = c.old || {}, n = c.new || {};
        if (o.page !== n.page) rows.push(["page", o.page, n.page]);
        var count = Math.max((o.actions || []).length, (n.actions || []).length);
        for (var i = 0; i < count; i++) {
          var oa = (o.actions || [])[i], na = (n.actions || [])[i];
          LOCK_FIELDS.forEach(function (f) {
            var ov = fieldOf(oa, f), nv = fieldOf(na, f);
            if (ov !== nv) rows.push(["action " + (i + 1) + " " + f, ov, nv]);
          });
        }
        var shots = artifacts && artifacts.screenshots && c.stepIndex !== undefined ? [artifacts.screenshots[c.stepIndex - 1], artifacts.screenshots[c.stepIndex]] : [];
        return h("div", { class: "lock-change", "data-kind": c.kind },
          h("div", null, h("strong", { text: c.kind }), " ", h("span", { text: JSON.stringify(c.instruction) }), " ", h("code", { text: c.callSite + (c.ordinal ? " (#" + c.ordinal + ")" : "") }),
            c.stepIndex !== undefined ? h("span", { class: "dim", text: " · step " + c.stepIndex }) : null),
          h("table", null, h("thead", null, h("tr", null, ["Field", "Old", "New"].map(function (t) { return h("th", { text: t }); }))),
            h("tbody", null, rows.map(function (row) {
              return h("tr", null, h("td", { text: row[0] }), h("td", null, row[1] === undefined ? h("span", { class: "dim", text: "—" }) : h("code", { class: "old", text: row[1] })),
                h("td", null, row[2] === undefined ? h("span", { class: "dim", text: "—" }) : h("code", { class: "new", text: row[2] })));
            }))),
          shots[0] || shots[1] ? h("div", { class: "lock-shots" },
            shots[0] ? h("figure", null, h("img", { class: "thumb", src: shots[0], alt: "the page before step " + c.stepIndex }), h("figcaption", { class: "dim", text: "before (after step " + (c.stepIndex - 1) + ")" })) : null,
            shots[1] ? h("figure", null, h("img", { class: "thumb", src: shots[1], alt: "the page after step " + c.stepIndex }), h("figcaption", { class: "dim", text: "after step " + c.stepIndex })) : null) : null);
      }));
  }

  function workflowView(w) {
    var retries = Math.max(0, w.attempts.length - 1);
    return h("details", { class: "workflow", "data-outcome": w.outcome, open: w.outcome === "failed" ? "" : null },
      h("summary", null, status(w.outcome), " ", w.project ? h("span", { class: "project", text: "[" + w.project + "] › " }) : null, h("span", { text: w.file + " › " }), h("strong", { text: w.name }),
        (w.tags || []).map(function (t) { return h("span", { class: "badge tag", text: t }); }),
        retries ? h("span", { class: "badge dim", text: retries + (retries === 1 ? " retry" : " retries") }) : null,
        w.shard ? h("span", { class: "badge dim shard", text: "shard " + w.shard.current + "/" + w.shard.total }) : null,
        h("span", { class: "dim", text: "  " + ms(w.durationMs) })),
      w.attempts.length ? w.attempts.map(function (a, i) { return attemptView(a, i, w.attempts.length); }) : h("p", { class: "attempt dim", text: "Did not run." }));
  }

  var s = data.stats;
  var counts = [["all", data.workflows.length], ["passed", s.passed], ["flaky", s.flaky], ["failed", s.failed], ["interrupted", s.interrupted], ["skipped", s.skipped]];
  // With projects, one section per project (in the order they ran), as Playwright's report groups them.
  var projects = [];
  data.workflows.forEach(function (w) { if (w.project && projects.indexOf(w.project) < 0) projects.push(w.project); });
  var list = h("div", { id: "workflows" }, projects.length === 0 ? data.workflows.map(workflowView) : projects.map(function (p) {
    return h("section", { class: "project", "data-project": p }, h("h2", { text: p }),
      data.workflows.filter(function (w) { return w.project === p; }).map(workflowView));
  }));
  var buttons = counts.filter(function (c) { return c[0] === "all" || c[1] > 0; }).map(function (c) {
    return h("button", { type: "button", "data-filter": c[0], "aria-pressed": c[0] === "all" ? "true" : "false", text: c[0] + " (" + c[1] + ")" });
  });
  buttons.forEach(function (b) {
    b.addEventListener("click", function () {
      var f = b.getAttribute("data-filter");
      buttons.forEach(function (o) { o.setAttribute("aria-pressed", o === b ? "true" : "false"); });
      list.querySelectorAll("details.workflow").forEach(function (d) { d.hidden = f !== "all" && d.getAttribute("data-outcome") !== f; });
    });
  });
  document.title = "wf report · " + data.status;
  app.replaceChildren(
    h("h1", null, "wf report ", status(data.status)),
    h("div", { class: "meta", text: new Date(data.startedAt).toLocaleString() + " · " + ms(data.durationMs) + " · " + data.workflows.length + " workflow" + (data.workflows.length === 1 ? "" : "s") + (data.shard ? " · shard " + data.shard.current + "/" + data.shard.total : "") }),
    h("div", { class: "filters" }, buttons),
    list);
  // Served over HTTP (wf show-report), trace links open Playwright's trace viewer when it is there.
  if (/^https?:$/.test(location.protocol) && traceLinkSetters.length) {
    fetch("trace/index.html", { method: "HEAD" }).then(function (res) {
      if (!res.ok) return;
      traceLinkSetters.forEach(function (set) { set(); });
    }, function () {});
  }
})();
