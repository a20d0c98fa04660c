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
  // Roles whose accessible name comes from their author only (aria-label, aria-labelledby, a
  // native label), never from their content (WAI-ARIA 1.2): a listbox is not named by its options.
  var WF_AUTHOR_NAMED = { alert: 1, alertdialog: 1, application: 1, article: 1, banner: 1, combobox: 1, complementary: 1, contentinfo: 1, dialog: 1,
    document: 1, feed: 1, figure: 1, form: 1, grid: 1, group: 1, list: 1, listbox: 1, log: 1, main: 1, marquee: 1, math: 1, menu: 1, menubar: 1,
    meter: 1, navigation: 1, note: 1, progressbar: 1, radiogroup: 1, region: 1, scrollbar: 1, search: 1, searchbox: 1, separator: 1, slider: 1,
    spinbutton: 1, status: 1, table: 1, tablist: 1, tabpanel: 1, textbox: 1, timer: 1, toolbar: 1, tree: 1, treegrid: 1 };
  // Hidden from the accessibility tree on its own account: aria-hidden, display: none, visibility: hidden.
  function wfAriaHidden(el) {
    if (el.getAttribute("aria-hidden") === "true") return true;
    if (el.tagName === "SLOT") return false;
    var st = getComputedStyle(el);
    return st.display === "none" || st.visibility === "hidden" || st.visibility === "collapse";
  }
  // CSS generated content (::before/::after) that is text, as accessible names count it.
  function wfPseudo(el, which) {
    var c = getComputedStyle(el, which).content;
    if (!c || c === "none" || c === "normal" || c.charAt(0) !== '"') return "";
    try { return JSON.parse(c).replace(/[\uE000-\uF8FF]/g, ""); } catch (e) { return ""; }
  }
  // The text an element contributes to a name computed from content (accname "name from content"):
  // its text nodes as written (no CSS text-transform), its children's own names (aria-label, alt),
  // what is hidden left out (unless hiddenOk: a hidden element referenced by aria-labelledby), blocks
  // set apart by spaces. visited guards against loops of references.
  function wfNameFrom(el, visited, hiddenOk, inLabelledBy) {
    var out = wfPseudo(el, "::before");
    var list = el.shadowRoot ? el.shadowRoot.childNodes : el.tagName === "SLOT" ? (el.assignedNodes({ flatten: true }).length ? el.assignedNodes({ flatten: true }) : el.childNodes) : el.childNodes;
    for (var i = 0; i < list.length; i++) {
      var c = list[i];
      if (c.nodeType === 3) { out += c.nodeValue; continue; }
      if (c.nodeType !== 1 || /^(SCRIPT|STYLE|TEMPLATE|NOSCRIPT)$/.test(c.tagName)) continue;
      if (!hiddenOk && wfAriaHidden(c)) continue;
      var part = wfNamePart(c, visited, hiddenOk, inLabelledBy);
      var d = c.tagName === "SLOT" ? "contents" : getComputedStyle(c).display;
      out += /^(inline|contents)$/.test(d) || c.tagName === "BR" ? part : " " + part + " ";
    }
    return out + wfPseudo(el, "::after");
  }
  // A descendant's (or a referenced element's) part of a name: its aria-labelledby (outside a
  // labelledby walk), aria-label, an embedded control's value, alt text, else its content.
  function wfNamePart(el, visited, hiddenOk, inLabelledBy) {
    if (visited.indexOf(el) >= 0) return "";
    visited.push(el);
    var by = el.getAttribute("aria-labelledby");
    if (by && !inLabelledBy) {
      var refs = by.split(/\s+/).map(function (id) { var r = id ? wfById(el, id) : null; return r ? wfNamePart(r, visited, wfAriaHidden(r), true) : ""; });
      var joined = refs.join(" ").replace(/\s+/g, " ").trim();
      if (joined) return joined;
    }
    var aria = el.getAttribute("aria-label");
    if (aria && aria.trim()) return aria;
    var tag = el.tagName;
    if (tag === "INPUT") {
      var type = (el.getAttribute("type") || "text").toLowerCase();
      if (type === "button" || type === "submit" || type === "reset") return el.value || (type === "submit" ? "Submit" : type === "reset" ? "Reset" : "");
      if (type === "image") return el.getAttribute("alt") || el.value || "";
      if (type === "checkbox" || type === "radio" || type === "file" || type === "hidden") return "";
      return el.value || "";
    }
    if (tag === "TEXTAREA") return el.value || "";
    if (tag === "SELECT") return Array.prototype.filter.call(el.options, function (o) { return o.selected; }).map(function (o) { return o.textContent; }).join(" ");
    if (tag === "IMG" || tag === "AREA") return el.getAttribute("alt") || el.getAttribute("title") || "";
    var r = (el.getAttribute("role") || "").trim().split(/\s+/)[0];
    if (r === "textbox" || r === "searchbox") return el.textContent || "";
    var own = wfNameFrom(el, visited, hiddenOk, inLabelledBy);
    if (own.replace(/\s+/g, "")) return own;
    return el.getAttribute("title") || "";
  }
  // The accessible name as Playwright's getByRole computes it (and Chromium, but for CSS
  // text-transform, which Chromium applies and Playwright does not): aria-labelledby, aria-label,
  // native labels (a <label>, alt, legend, caption, a button's value), content for the roles named
  // from it, title. Whitespace folded, not clipped.
  function wfAccName(el) {
    wfFromContent = false;
    var visited = [el];
    var fold = function (s) { return (s || "").replace(/\s+/g, " ").trim(); };
    var by = el.getAttribute("aria-labelledby");
    if (by) {
      var parts = by.split(/\s+/).map(function (id) { var r = id ? wfById(el, id) : null; return r ? fold(r === el ? wfNameFrom(r, visited, false, true) : wfNamePart(r, visited, wfAriaHidden(r), true)) : ""; }).filter(Boolean);
      if (parts.length) return parts.join(" ");
    }
    var aria = el.getAttribute("aria-label");
    if (aria && aria.trim()) return fold(aria);
    var tag = el.tagName.toLowerCase();
    var type = tag === "input" ? (el.getAttribute("type") || "text").toLowerCase() : "";
    if (tag === "input" && (type === "button" || type === "submit" || type === "reset")) return fold(el.value) || (type === "submit" ? "Submit" : type === "reset" ? "Reset" : "");
    if (el.labels && el.labels.length && tag !== "button") {
      var texts = Array.prototype.map.call(el.labels, function (l) { return fold(wfNamePart(l, visited, false, false)); }).filter(Boolean);
      if (texts.length) return texts.join(" ");
    }
    if (tag === "img" || tag === "area" || (tag === "input" && type === "image")) { var alt = fold(el.getAttribute("alt")); if (alt) return alt; }
    if (tag === "fieldset") { var lg = el.querySelector(":scope > legend"); if (lg) { var l = fold(wfNameFrom(lg, visited, false, false)); if (l) return l; } }
    if (tag === "table" && el.caption) { var cap = fold(wfNameFrom(el.caption, visited, false, false)); if (cap) return cap; }
    if (tag === "input" || tag === "textarea" || tag === "select") return fold(el.getAttribute("title") || el.getAttribute("placeholder") || "");
    if (!WF_AUTHOR_NAMED[wfRole(el)]) { var text = fold(wfNameFrom(el, visited, false, false)); if (text) { wfFromContent = true; return text; } }
    return fold(el.getAttribute("title") || "");
  }
  // Set by wfAccName when the name it returned came from the element's content.
  var wfFromContent = false;
  function wfName(el) {
    var name = wfAccName(el);
    var tag = el.tagName.toLowerCase();
    // A field without an accessible name still says what it is for by its name attribute.
    if (!name && (tag === "input" || tag === "textarea" || tag === "select")) return (el.getAttribute("name") || "").trim();
    if (!name) return (el.getAttribute("alt") || "").trim();
    // A name read from content (a long link, a card) is clipped for messages; an author's name is kept whole.
    return wfFromContent && name.length > 80 ? name.slice(0, 77) + "…" : name;
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
  // The title a dialog shows: its first heading (or element styled as its title) with text, which
  // may differ from its name (a labelledby that points at a title holding only the close button).
  function wfDialogTitle(a) {
    var hs = a.querySelectorAll(WF_HEADINGS + ",[class*=title],[class*=Title]");
    for (var i = 0; i < hs.length; i++) { var t = wfText(hs[i]); if (t) return t; }
    return "";
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
