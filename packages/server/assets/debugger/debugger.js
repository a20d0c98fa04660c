// The debugger / preview page of a session (index.html beside this file). Fixed for every
// session: the session id and token come from the page's own address (…/view/{id}?token=…), the
// rest from the session's event stream (`status` events, each a DebuggerUpdate:
// { status: SessionStatus, screenshots: stepId[] }). Text reaches the page only through
// textContent and attributes, never through HTML parsing.
"use strict";
(() => {
  const base = location.pathname.replace(/\/+$/, "");
  const sessionId = decodeURIComponent(base.slice(base.lastIndexOf("/") + 1));
  const q = "?token=" + encodeURIComponent(new URLSearchParams(location.search).get("token") || "");
  let selected = null;
  let last = null;
  const $ = (id) => document.getElementById(id);
  const el = (tag, cls, text) => {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined) e.textContent = text;
    return e;
  };
  const fmtMs = (ms) => (ms == null ? "" : ms < 1000 ? ms + " ms" : (ms / 1000).toFixed(2) + " s");

  $("session-id").textContent = sessionId;
  document.title = "wf session " + sessionId;

  function showShot(update) {
    const box = $("shot");
    const withShot = update.status.steps.filter((s) => update.screenshots.includes(s.stepId));
    const step = (selected && withShot.find((s) => s.stepId === selected)) || withShot[withShot.length - 1];
    if (!step) return;
    const src = base + "/screenshots/" + encodeURIComponent(step.stepId) + q;
    $("shot-caption").textContent = "after step " + (step.index + 1);
    const img = box.querySelector("img");
    if (img && img.getAttribute("src") === src) return;
    box.className = "";
    box.replaceChildren(Object.assign(el("img"), { src, alt: "Screenshot after step " + (step.index + 1) }));
  }

  function render(update) {
    last = update;
    const s = update.status;
    const badge = $("session-status");
    badge.textContent = s.status;
    badge.className = "badge " + s.status;
    $("current-url").textContent = s.currentUrl || "—";
    $("workflow").textContent = s.kind === "STORED" ? "Stored workflow: " + s.workflowId : "Step session";
    $("session-error").textContent = s.error ? s.error.code + ": " + s.error.message : s.output !== undefined ? "Output: " + JSON.stringify(s.output) : "";
    const list = $("steps");
    if (s.steps.length === 0) {
      list.replaceChildren(el("li", "empty", "No steps yet."));
      return;
    }
    list.replaceChildren(
      ...s.steps.map((step) => {
        const li = el("li", "step" + (step.stepId === selected ? " selected" : ""));
        li.dataset.stepId = step.stepId;
        li.dataset.status = step.status;
        const head = el("div");
        head.append(el("span", "badge " + step.status, step.status), " ", el("strong", "", "#" + (step.index + 1) + " " + step.type), " ", el("span", "instr", step.step), " ", el("span", "meta", fmtMs(step.durationMs)));
        li.append(head);
        if (step.error) li.append(el("div", "detail", step.error.code + ": " + step.error.message));
        else if (step.result !== undefined) li.append(el("div", "detail", typeof step.result === "string" ? step.result : JSON.stringify(step.result, null, 2)));
        if (step.pageUrl) li.append(el("div", "meta", step.pageUrl));
        li.addEventListener("click", () => {
          selected = step.stepId;
          render(last);
        });
        return li;
      }),
    );
    showShot(update);
  }

  const source = new EventSource(base + "/events" + q);
  source.addEventListener("status", (event) => {
    $("connection").textContent = "";
    render(JSON.parse(event.data));
  });
  source.onerror = () => {
    $("connection").textContent = "Disconnected; retrying…";
  };
})();
