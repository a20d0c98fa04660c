/**
 * In-page helpers shared by every script that runs in the page: open shadow roots and the composed
 * tree, role and accessible-name estimates, visible text, headings and sections, dialogs, rows,
 * disclosures, and what tells an element apart from its twin (`wfContext`). Not a function itself:
 * source text that each script (`elements.ts`, `extract.ts`, the model's page view,
 * the recorder) pastes at its start.
 *
 * Written as plain JavaScript source and turned into functions with `new Function`, because
 * TypeScript loaders (tsx) wrap named functions in a `__name` helper that does not exist in the
 * page; a function built from a string keeps its source as written, which is what Playwright
 * sends to the browser (see `index.ts`).
 */

/** The in-page helpers, as source text pasted at the start of each page script. */
export const DESCRIBE_SOURCE = String.raw`
  // Open shadow roots: the document and every open shadow root in it (found once per call), the
  // composed tree's parent of a node (its slot, its parent, or its shadow root's host), closest()
  // and document order across shadow boundaries. A page without shadow roots takes the plain paths.
  var wfRootList = null;
  function wfRoots() {
    if (wfRootList) return wfRootList;
    wfRootList = [document];
    for (var r = 0; r < wfRootList.length; r++) {
      var all = wfRootList[r].querySelectorAll("*");
      for (var i = 0; i < all.length; i++) if (all[i].shadowRoot) wfRootList.push(all[i].shadowRoot);
    }
    return wfRootList;
  }
  function wfShadow() { return wfRoots().length > 1; }
  function wfParent(n) { return n.assignedSlot || n.parentElement || (n.parentNode && n.parentNode.host) || null; }
  function wfClosest(el, sel) {
    if (!wfShadow()) return el.closest(sel);
    for (var n = el; n; n = wfParent(n)) if (n.nodeType === 1 && n.matches(sel)) return n;
    return null;
  }
  // The element's tree, then the hosts around it: [outermost host, …, el].
  function wfChain(n) { var out = [n]; for (var root = n.getRootNode(); root && root.host; root = root.host.getRootNode()) out.unshift(root.host); return out; }
  // compareDocumentPosition in the composed tree: a shadow root's content comes after its host and before the host's light children.
  function wfPos(a, b) {
    if (!wfShadow() || a.getRootNode() === b.getRootNode()) return a.compareDocumentPosition(b);
    var ca = wfChain(a), cb = wfChain(b), i = 0;
    while (i < ca.length && i < cb.length && ca[i] === cb[i]) i++;
    if (i === ca.length) return 20;
    if (i === cb.length) return 10;
    var p = ca[i].compareDocumentPosition(cb[i]);
    if (p & 16) return i === ca.length - 1 ? 20 : 4;
    if (p & 8) return i === cb.length - 1 ? 10 : 2;
    return p & 6;
  }
  // querySelectorAll over the document and its open shadow roots, in composed document order.
  function wfAll(sel) {
    var out = Array.prototype.slice.call(document.querySelectorAll(sel));
    var roots = wfRoots();
    if (roots.length === 1) return out;
    for (var r = 1; r < roots.length; r++) out = out.concat(Array.prototype.slice.call(roots[r].querySelectorAll(sel)));
    return out.sort(function (a, b) { if (a === b) return 0; var p = wfPos(a, b); return p & 4 ? -1 : p & 2 ? 1 : 0; });
  }
  // getElementById in the element's own tree (a shadow root has its own ids).
  function wfById(el, id) { var root = el.getRootNode(); return root && root.getElementById ? root.getElementById(id) : document.getElementById(id); }
  function wfRole(el) {
    var explicit = (el.getAttribute("role") || "").trim().split(/\s+/)[0];
    if (explicit) return explicit;
    var tag = el.tagName.toLowerCase();
    if (tag === "a" || tag === "area") return el.hasAttribute("href") ? "link" : "generic";
    if (tag === "button" || tag === "summary") return "button";
    if (tag === "select") return el.multiple || el.size > 1 ? "listbox" : "combobox";
    if (tag === "textarea") return "textbox";
    if (tag === "img") return "img";
    if (/^h[1-6]$/.test(tag)) return "heading";
    if (tag === "option") return "option";
    if (tag === "li") return "listitem";
    if (tag === "td") return "cell";
    if (tag === "th") return "columnheader";
    if (tag === "label") return "label";
    if (tag === "input") {
      var type = (el.getAttribute("type") || "text").toLowerCase();
      if (type === "checkbox") return "checkbox";
      if (type === "radio") return "radio";
      if (type === "button" || type === "submit" || type === "reset" || type === "image" || type === "file") return "button";
      if (type === "range") return "slider";
      if (type === "number") return "spinbutton";
      if (type === "search") return el.hasAttribute("list") ? "combobox" : "searchbox";
      if (type === "hidden") return "none";
      return el.hasAttribute("list") ? "combobox" : "textbox";
    }
    return "text";
  }
  // The role Playwright's getByRole is sure to give the element (HTML-AAM implicit roles with no
  // room for doubt), or "" when it could differ: an explicit role attribute, a select, a list, custom elements.
  function wfCertainRole(el) {
    if (el.hasAttribute("role")) return "";
    var tag = el.tagName;
    if (tag === "BUTTON") return "button";
    if (tag === "A") return el.hasAttribute("href") ? "link" : "";
    if (tag === "TEXTAREA") return "textbox";
    if (tag !== "INPUT" || el.hasAttribute("list")) return "";
    var type = el.type;
    if (type === "text" || type === "email" || type === "tel" || type === "url") return "textbox";
    if (type === "search") return "searchbox";
    if (type === "checkbox" || type === "radio") return type;
    if (type === "button" || type === "submit" || type === "reset") return "button";
    if (type === "number") return "spinbutton";
    if (type === "range") return "slider";
    return "";
  }
  function wfText(el) {
    return ((el.innerText !== undefined ? el.innerText : el.textContent) || "").replace(/\s+/g, " ").trim();
  }
  function wfName(el) {
    var aria = el.getAttribute("aria-label");
    if (aria && aria.trim()) return aria.trim();
    var by = el.getAttribute("aria-labelledby");
    if (by) {
      var parts = by.split(/\s+/).map(function (id) { var r = wfById(el, id); return r ? wfText(r) : ""; }).filter(Boolean);
      if (parts.length) return parts.join(" ");
    }
    var tag = el.tagName.toLowerCase();
    if (el.labels && el.labels.length && tag !== "button") {
      var texts = Array.prototype.map.call(el.labels, function (l) { return wfText(l); }).filter(Boolean);
      if (texts.length) return texts.join(" ");
    }
    if (tag === "img" || (tag === "input" && el.type === "image")) { if (el.getAttribute("alt")) return el.getAttribute("alt").trim(); }
    if (tag === "input" && (el.type === "button" || el.type === "submit" || el.type === "reset")) return el.value || el.type;
    if (tag === "input" || tag === "textarea" || tag === "select") {
      return (el.getAttribute("title") || el.getAttribute("placeholder") || el.getAttribute("name") || "").trim();
    }
    var text = wfText(el);
    if (text) return text.length > 80 ? text.slice(0, 77) + "…" : text;
    return (el.getAttribute("title") || el.getAttribute("alt") || "").trim();
  }
  // Text folded for loose comparison: case, whitespace, dashes, quotes, a leading section number.
  function wfFold(t) {
    return (t || "").toLowerCase().replace(/[\u2010-\u2015\u2212]/g, "-").replace(/[\u2018\u2019\u201a\u201b\u201c\u201d\u201e\u00ab\u00bb\u0060\u00b4]/g, "'").replace(/"/g, "'")
      .replace(/\s+/g, " ").trim().replace(/^(?:(?:[a-z]|[ivxlc]+)\.\s+|\d+(?:\.\d+)*\.?\s+)/, "").replace(/[\s:.!?*…→»›>]+$/, "");
  }
  var WF_HEADINGS = "h1,h2,h3,h4,h5,h6,[role=heading]";
  function wfLevel(h) { return /^H[1-6]$/.test(h.tagName) ? Number(h.tagName[1]) : Number(h.getAttribute("aria-level") || 2); }
  // The heading that owns el: the last heading before it (not inside it).
  function wfOwnHeading(el, all) {
    var best = null;
    for (var i = 0; i < all.length; i++) {
      var pos = wfPos(all[i], el);
      if (pos & Node.DOCUMENT_POSITION_FOLLOWING && !(pos & Node.DOCUMENT_POSITION_CONTAINED_BY)) best = all[i]; else if (!(pos & Node.DOCUMENT_POSITION_CONTAINED_BY)) break;
    }
    return best;
  }
  // True when heading h owns el: h comes before el, and no heading of the same or a higher level comes between.
  function wfInSection(el, h, all) {
    var pos = wfPos(h, el);
    if (!(pos & Node.DOCUMENT_POSITION_FOLLOWING) || (pos & Node.DOCUMENT_POSITION_CONTAINED_BY)) return false;
    var lv = wfLevel(h), started = false;
    for (var i = 0; i < all.length; i++) {
      if (all[i] === h) { started = true; continue; }
      if (!started) continue;
      var p = wfPos(all[i], el);
      if (!(p & Node.DOCUMENT_POSITION_FOLLOWING) || (p & Node.DOCUMENT_POSITION_CONTAINED_BY)) break;
      if (wfLevel(all[i]) <= lv) return false;
    }
    return true;
  }
  function wfLabelOf(a) {
    var own = a.getAttribute && (a.getAttribute("aria-label") || "");
    if (own) return own;
    var by = a.getAttribute && a.getAttribute("aria-labelledby");
    if (by) { var r = wfById(a, by.split(/\s+/)[0]); if (r) return wfText(r); }
    var first = a.querySelector && a.querySelector(":scope > legend, :scope > caption, :scope > summary");
    return first ? wfText(first) : "";
  }
  // A list item's or card's own words: its text without its buttons' and links' text ("Buy milk").
  function wfItemText(item) {
    var t = wfText(item);
    Array.prototype.forEach.call(item.querySelectorAll("button,[role=button],a[href],select"), function (b) { var bt = wfText(b); if (bt) t = t.replace(bt, " "); });
    return t.replace(/\s+/g, " ").trim();
  }
  // The first words an item or cell shows (its first text outside buttons, links and fields): "Pay rent" of "Pay rent Fri ×".
  function wfLead(a) {
    var walker = document.createTreeWalker(a, NodeFilter.SHOW_TEXT);
    for (var n = walker.nextNode(); n; n = walker.nextNode()) {
      var t = (n.textContent || "").replace(/\s+/g, " ").trim();
      if (t && !(n.parentElement && n.parentElement.closest("button,a[href],select,option,script,style,[role=button]"))) return t;
    }
    return "";
  }
  // The text of the heading row (one cell spanning the table) above el's row, or null.
  function wfRowSection(el) {
    for (var tr = el.closest("tr"); tr; tr = tr.parentElement ? tr.parentElement.closest("tr") : null) {
      var prev = tr;
      while (prev) {
        var only = prev.children.length === 1 ? prev.children[0] : null;
        if (only && only.colSpan > 1) return wfText(only);
        if (prev.previousElementSibling) prev = prev.previousElementSibling;
        else {
          var group = prev.parentElement && prev.parentElement.previousElementSibling;
          prev = group && /^(TBODY|THEAD)$/.test(group.tagName) ? group.lastElementChild : null;
        }
      }
    }
    return null;
  }
  // A modal built from divs: a shown element with a fixed position that covers the viewport (a
  // backdrop holding the box), or a fixed box beside such a backdrop, holding something to press.
  function wfCovers(a) {
    if (a.nodeType !== 1 || a === document.body || a === document.documentElement || getComputedStyle(a).position !== "fixed") return false;
    var r = a.getBoundingClientRect();
    return r.width >= innerWidth * 0.9 && r.height >= innerHeight * 0.9 && r.left <= innerWidth * 0.05 && r.top <= innerHeight * 0.05;
  }
  function wfOverlay(a) {
    if (a.nodeType !== 1 || a === document.body || a === document.documentElement) return false;
    var fixed = getComputedStyle(a).position === "fixed";
    if (!fixed) return false;
    var r = a.getBoundingClientRect();
    if (r.width === 0 || r.height === 0 || !a.querySelector("button,[role=button],a[href],input,select")) return false;
    return wfCovers(a) || Boolean(a.previousElementSibling && wfCovers(a.previousElementSibling)) || Boolean(a.nextElementSibling && wfCovers(a.nextElementSibling));
  }
  // The innermost dialog around el: <dialog>, role dialog/alertdialog, aria-modal, or a modal built from divs.
  function wfDialog(el) {
    for (var n = el; n; n = wfParent(n)) {
      if (n.nodeType !== 1) continue;
      if (n.matches("dialog,[role=dialog],[role=alertdialog],[aria-modal=true]")) return n;
      if (wfOverlay(n)) return n;
    }
    return null;
  }
  // A dialog's name: its label, else its first heading, else its first element styled as its title.
  function wfDialogName(a) {
    var own = wfLabelOf(a);
    if (own) return own;
    var h = a.querySelector(WF_HEADINGS) || a.querySelector("[class*=title],[class*=Title],[class*=header],[class*=Header]");
    return h ? wfText(h) : "";
  }
  // Disclosure buttons (aria-expanded) name what they show: a schema browser's model, an accordion's panel.
  var wfDisclosureList = null;
  function wfDisclosures() {
    if (!wfDisclosureList) wfDisclosureList = wfAll("button[aria-expanded],[role=button][aria-expanded]");
    return wfDisclosureList;
  }
  function wfDisclosureName(b) {
    var aria = b.getAttribute("aria-label");
    if (aria && aria.trim()) return aria.trim();
    var walker = document.createTreeWalker(b, NodeFilter.SHOW_TEXT);
    for (var n = walker.nextNode(); n; n = walker.nextNode()) { var t = (n.textContent || "").replace(/\s+/g, " ").trim(); if (t) return t; }
    return "";
  }
  // True when disclosure button b owns el: the element it controls (aria-controls) holds el, or el
  // follows b in the block b heads (the nearest ancestor with something after b), with no other
  // disclosure button of b's kind (tag and classes) between them.
  function wfDisclosureOwns(b, el) {
    var ctl = b.getAttribute("aria-controls");
    if (ctl) { var t = wfById(b, ctl.split(/\s+/)[0]); if (t) return t.contains(el); }
    if (b.contains(el) || !(wfPos(b, el) & Node.DOCUMENT_POSITION_FOLLOWING)) return false;
    var branch = b, p = b.parentElement;
    for (var d = 0; p && d < 4 && p !== document.body && !branch.nextElementSibling; d++) { branch = p; p = p.parentElement; }
    if (!p || p === document.body || !branch.nextElementSibling || !p.contains(el)) return false;
    var peers = p.querySelectorAll(b.tagName + (b.className && typeof b.className === "string" ? "." + b.className.trim().split(/\s+/).map(function (c) { return CSS.escape(c); }).join(".") : "") + "[aria-expanded]");
    for (var i = 0; i < peers.length; i++) {
      if (peers[i] === b || peers[i].contains(el)) continue;
      if ((wfPos(b, peers[i]) & Node.DOCUMENT_POSITION_FOLLOWING) && (wfPos(peers[i], el) & Node.DOCUMENT_POSITION_FOLLOWING)) return false;
    }
    return true;
  }
  // The name of the innermost disclosure button that owns el, or "".
  function wfDisclosureOf(el) {
    var list = wfDisclosures();
    for (var i = list.length - 1; i >= 0; i--) if (wfDisclosureOwns(list[i], el)) return wfDisclosureName(list[i]);
    return "";
  }
  // What tells an element apart from a twin: its section heading, table row, table and dialog.
  function wfContext(el, all) {
    var h = wfOwnHeading(el, all);
    var row = wfClosest(el, "tr,[role=row]");
    var cell = row ? row.querySelector("td,th,[role=cell],[role=gridcell],[role=rowheader]") : null;
    var table = wfClosest(el, "table,[role=table],[role=grid]");
    var dialog = wfDialog(el);
    var form = wfClosest(el, "form");
    var item = wfClosest(el, "li,[role=listitem],article");
    return {
      item: item ? wfItemText(item) : "",
      section: wfRowSection(el) || wfDisclosureOf(el) || (h ? wfText(h) : ""),
      row: cell && !cell.contains(el) ? wfText(cell) : "",
      table: table ? (wfLabelOf(table) || "") : "",
      dialog: dialog ? (wfLabelOf(dialog) || "dialog") : "",
      form: form ? (form.getAttribute("action") || "") + "|" + (form.getAttribute("method") || "") : "",
    };
  }
  function wfVisible(el) {
    if (typeof el.checkVisibility === "function") return el.checkVisibility({ checkOpacity: false, checkVisibilityCSS: true });
    var r = el.getBoundingClientRect();
    return r.width > 0 || r.height > 0;
  }
`;
