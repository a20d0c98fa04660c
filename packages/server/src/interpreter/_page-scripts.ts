/**
 * Code that runs inside the page. Written as plain JavaScript source and turned into functions
 * with `new Function`, because TypeScript loaders (tsx) wrap named functions in a `__name` helper
 * that does not exist in the page; a function built from a string keeps its source as written,
 * which is what Playwright sends to the browser.
 */

/** In-page role and accessible-name estimate for one element (shared by both scripts). */
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

/** What {@link describeElements} says of each element of a locator. */
export interface ElementInfo {
  role: string;
  name: string;
  visible: boolean;
  /** Index of an earlier element this one stands for (a label and its control, the same element), or -1. */
  sameAs: number;
  /** Index of another listed element that contains this one, or -1. */
  inside: number;
  /** A link's resolved `href`, else `""`. */
  href: string;
  /** True for a link to an anchor of the page it is on (`#section`, a table of contents entry). */
  samePageAnchor: boolean;
  /** What tells it apart from an element with the same role and name: its section heading, row (first cell), table, dialog, form. */
  context: { section: string; row: string; table: string; dialog: string; form: string; item: string };
  /** Attributes of a field that say what it does: placeholder, `name`, `type`. */
  fieldKey: string;
  /**
   * The role Playwright's `getByRole` is sure to compute for the element itself (a `<button>`, an
   * `<a href>`, a text `<input>` without `list`, …), or `""` when it could differ (an explicit
   * `role`, a `<select>`, a custom element). Lets a match of a union of roles be acted on through
   * the one role's locator (see `actionLocator` in locate.ts).
   */
  certainRole: string;
  /** Set in Node when the target names scopes and this element lies outside them. */
  outOfScope?: boolean;
}

/** Describes the elements of a locator (`locator.evaluateAll(describeElements)`). */
export const describeElements = new Function(
  String.raw`return function (els) {${DESCRIBE_SOURCE}
    var canon = els.map(function (el) { return el.tagName === "LABEL" && el.control ? el.control : el; });
    var headings = wfAll(WF_HEADINGS);
    return els.map(function (el, i) {
      var c = canon[i];
      var sameAs = -1, inside = -1;
      for (var j = 0; j < els.length; j++) {
        if (j === i) continue;
        if (j < i && canon[j] === c && sameAs === -1) sameAs = j;
        if (canon[j] !== c && canon[j] !== document.body && canon[j].contains(c) && inside === -1) inside = j;
      }
      var href = c.tagName === "A" && c.hasAttribute("href") ? c.href : "";
      var samePageAnchor = Boolean(href) && href.indexOf("#") > 0 && href.split("#")[0] === location.href.split("#")[0];
      var fieldKey = /^(INPUT|TEXTAREA|SELECT)$/.test(c.tagName) ? [c.getAttribute("placeholder") || "", c.getAttribute("name") || "", c.getAttribute("type") || ""].join("|") : "";
      return { role: wfRole(c), name: wfName(c), visible: wfVisible(el) && wfVisible(c), sameAs: sameAs, inside: inside, href: href, samePageAnchor: samePageAnchor, context: wfContext(c, headings), fieldKey: fieldKey, certainRole: wfCertainRole(el) };
    });
  }`,
)() as (elements: Element[]) => ElementInfo[];

/** A place a target is looked for in (see `ScopeSpec` in grammar.ts): kind and name, innermost first. */
export interface ScopeArg {
  kind: string;
  text: string;
}

/**
 * For each element, whether it lies in every scope (`locator.evaluateAll(inScopes, scopes)`). A
 * section is owned by its heading (up to the next heading of the same or a higher level) or is an
 * element labelled with the name; a dialog by role and name (any open dialog when unnamed); a row
 * by any cell's text; a table by caption, label or heading; a list, form, card, region by label or
 * the heading it starts with or lies under.
 */
export const inScopes = new Function(
  String.raw`return function (els, scopes) {${DESCRIBE_SOURCE}
    var headings = wfAll(WF_HEADINGS);
    function named(t, want) {
      var f = wfFold(t);
      return want === "" || f === want || (f.indexOf(want + " ") === 0 && /^(section|schema|table|dialog|list|form|card|panel|region|model)$/.test(f.slice(want.length + 1)));
    }
    function containerNamed(a, want) {
      if (named(wfLabelOf(a), want) && wfLabelOf(a)) return true;
      var cap = a.querySelector(":scope > caption, :scope > legend");
      if (cap && named(wfText(cap), want)) return true;
      var h = a.querySelector(WF_HEADINGS);
      if (Boolean(h) && named(wfText(h), want) && (h.compareDocumentPosition(a) & Node.DOCUMENT_POSITION_CONTAINS) !== 0 && a.firstElementChild && (a.firstElementChild === h || a.firstElementChild.contains(h))) return true;
      // A component whose shadow root starts with (a block holding) the heading: <x-panel heading="Billing">.
      var sr = a.shadowRoot, first = sr && Array.prototype.find.call(sr.children, function (k) { return k.tagName !== "STYLE" && k.tagName !== "SCRIPT"; });
      var sh = first && (first.matches(WF_HEADINGS) ? first : first.querySelector(WF_HEADINGS));
      return Boolean(sh) && named(wfText(sh), want);
    }
    function inOne(el, scope) {
      var want = wfFold(scope.text);
      var kind = scope.kind;
      var a;
      if (kind === "dialog") {
        for (a = wfDialog(el); a; a = wfParent(a) ? wfDialog(wfParent(a)) : null) {
          if (want === "" || named(wfDialogName(a), want)) return true;
        }
        return false;
      }
      if (kind === "row") {
        for (a = wfClosest(el, "tr,[role=row]"); a; a = wfParent(a) ? wfClosest(wfParent(a), "tr,[role=row]") : null) {
          var cells = a.querySelectorAll("td,th,[role=cell],[role=gridcell],[role=rowheader],[role=columnheader]");
          for (var i = 0; i < cells.length; i++) if (named(wfText(cells[i]), want) || named(wfLead(cells[i]), want)) return true;
        }
        return false;
      }
      if (kind === "card") {
        for (a = wfClosest(el, "li,[role=listitem],article,[class*=card]"); a; a = wfParent(a) ? wfClosest(wfParent(a), "li,[role=listitem],article,[class*=card]") : null) {
          if (named(wfItemText(a), want) || named(wfLead(a), want) || containerNamed(a, want)) return true;
        }
        return false;
      }
      if (kind === "table") {
        for (a = wfClosest(el, "table,[role=table],[role=grid]"); a; a = wfParent(a) ? wfClosest(wfParent(a), "table,[role=table],[role=grid]") : null) {
          if (want === "" || named(wfLabelOf(a), want)) return true;
          var th = wfOwnHeading(a, headings); if (th && named(wfText(th), want)) return true;
        }
        // "the Order schema": a table, or the section a heading of that name owns.
      }
      // section, list, form, card, region… : an ancestor labelled or headed with the name, or a heading's section.
      for (a = wfParent(el); a && a !== document.documentElement; a = wfParent(a)) {
        if (kind === "list" && !/^(UL|OL|DL|MENU)$/.test(a.tagName) && a.getAttribute("role") !== "list") { if (a !== document.body) continue; }
        if (kind === "form" && a.tagName !== "FORM" && a.getAttribute("role") !== "form") continue;
        if (want === "" && kind !== "section" && a !== document.body) return true;
        if (want !== "" && containerNamed(a, want)) return true;
        if (kind === "list" || kind === "form") { var lh = wfOwnHeading(a, headings); if (want !== "" && lh && named(wfText(lh), want) && wfInSection(a, lh, headings)) return true; }
      }
      if (kind === "list" || kind === "form") return false;
      // A long table cut into sections by heading rows (one cell spanning the table): the rows up to the next one.
      var rowSection = wfRowSection(el);
      if (rowSection !== null && named(rowSection, want)) return true;
      // A section a disclosure button names (a schema browser's model): what the button shows.
      if (want !== "") {
        var disclosures = wfDisclosures();
        for (var dq = 0; dq < disclosures.length; dq++) if (named(wfDisclosureName(disclosures[dq]), want) && wfDisclosureOwns(disclosures[dq], el)) return true;
      }
      for (var k = 0; k < headings.length; k++) {
        if (want !== "" && named(wfText(headings[k]), want) && wfInSection(el, headings[k], headings)) return true;
      }
      return false;
    }
    return els.map(function (el) {
      var c = el.tagName === "LABEL" && el.control ? el.control : el;
      for (var s = 0; s < scopes.length; s++) if (!inOne(c, scopes[s])) return false;
      return true;
    });
  }`,
)() as (elements: Element[], scopes: ScopeArg[]) => boolean[];

/**
 * For each control, whether the text written beside it (not on it) is `text`: its row's first cell
 * or `<th>`, the `<dt>` before its `<dd>`, or its item's own words (a sibling `<label>` without
 * `for`, a `<span>`) — `loose`: compared folded (case, whitespace, dashes, quotes).
 */
export const nearLabelMatches = new Function(
  String.raw`return function (els, arg) {${DESCRIBE_SOURCE}
    var want = arg[1] ? wfFold(arg[0]) : arg[0].trim();
    function same(t) { return t && (arg[1] ? wfFold(t) === want : t.replace(/\s+/g, " ").trim() === want); }
    return els.map(function (c) {
      var row = wfClosest(c, "tr,[role=row]");
      if (row) {
        var cells = row.querySelectorAll("td,th,[role=cell],[role=gridcell],[role=rowheader]");
        // The cell's whole text, or its first words (a cell holding the name, its type and a description).
        for (var i = 0; i < cells.length; i++) { if (cells[i].contains(c)) break; if (same(wfText(cells[i])) || same(wfLead(cells[i]))) return true; }
      }
      var dd = wfClosest(c, "dd");
      if (dd) { var dt = dd.previousElementSibling; while (dt && dt.tagName !== "DT") dt = dt.previousElementSibling; if (dt && same(wfText(dt))) return true; }
      var parent = wfParent(c);
      for (var depth = 0; parent && depth < 2 && parent !== document.body; depth++, parent = wfParent(parent)) {
        var controls = parent.querySelectorAll("input:not([type=hidden]),select,textarea,[role=checkbox],[role=switch],[role=combobox],[role=textbox]");
        if (controls.length !== 1) break;
        if (same(wfItemText(parent))) return true;
      }
      return false;
    });
  }`,
)() as (elements: Element[], arg: [text: string, loose: boolean]) => boolean[];

/** Options of a `<select>`, for loose option matching. */
export const listSelectOptions = new Function(
  String.raw`return function (el) {
    if (!el || el.tagName !== "SELECT") return null;
    return Array.prototype.map.call(el.options, function (o) { return { value: o.value, label: (o.label || o.textContent || "").replace(/\s+/g, " ").trim() }; });
  }`,
)() as (element: Element) => Array<{ value: string; label: string }> | null;

/** What the page shows, as plain data for ASK (see {@link extractPage}). */
export interface PageData {
  title: string;
  url: string;
  headings: Array<{ level: number; text: string }>;
  /** Labelled values: label + field, `dt`/`dd`, `th`/`td` rows, `Key: value` lines, `aria-label`. */
  pairs: Array<{ key: string; value: string; checked?: boolean; source: string }>;
  /**
   * Tables with their header texts (colspans expanded) and body rows. `rowSections`, beside `rows`:
   * the text of the section row (one cell spanning the table) each row lies under, `""` before the first.
   */
  tables: Array<{ caption: string; context: string; headers: string[]; rows: string[][]; section?: string[]; rowSections?: string[] }>;
  /** Counters: a number written with what it counts (`2 items left`, `Completed (3)`), outside buttons and links. */
  counters?: Array<{ label: string; value: string }>;
  /** Lists whose every item holds one checkbox (a to-do list): each item's own words and whether its box is checked. */
  checklists?: Array<{ context: string; items: Array<{ text: string; checked: boolean }> }>;
  /** Repeated sibling items (list items, cards), each as keyed fields. */
  groups: Array<{ context: string; tag: string; items: Array<{ text: string; fields: Array<{ keys: string[]; value: string; weight: number }> }>; section?: string[] }>;
  /* `section`: the headings the table or list lies under, outermost first (an h1, then the h2 under it…). */
  /** Text of `main` / `[role=main]` / `article`, else of `body`; whitespace collapsed, at most 20,000 characters. */
  mainText: string;
}

/** Walks the DOM once and returns {@link PageData}. */
export const extractPage = new Function(
  String.raw`return function () {${DESCRIBE_SOURCE}
  var MAX_ITEMS = 500;
  function clean(s) { return (s || "").replace(/[\u00a0\u202f]/g, " ").replace(/\s+/g, " ").trim(); }
  function text(el) { return clean(el.innerText !== undefined ? el.innerText : el.textContent); }
  function shown(el) { return wfVisible(el); }
  function controlValue(c) {
    var tag = c.tagName.toLowerCase();
    if (tag === "select") { var o = c.selectedOptions; return Array.prototype.map.call(o, function (x) { return clean(x.textContent); }).join(", "); }
    if (tag === "input" && (c.type === "checkbox" || c.type === "radio")) return c.checked ? "true" : "false";
    if ("value" in c && typeof c.value === "string" && tag !== "button" && tag !== "li") return c.value;
    return text(c);
  }
  function labelText(label, control) {
    var clone = label.cloneNode(true);
    Array.prototype.forEach.call(clone.querySelectorAll("input,select,textarea,button"), function (x) { x.remove(); });
    return clean(clone.textContent);
  }
  function precedingContext(el) {
    var node = el;
    for (var depth = 0; depth < 4 && node; depth++) {
      var prev = node.previousElementSibling;
      for (var hops = 0; prev && hops < 3; hops++) {
        var t = text(prev);
        if (t && t.length < 200) return t;
        prev = prev.previousElementSibling;
      }
      node = node.parentElement;
    }
    return "";
  }
  // The headings an element lies under, outermost first: each heading owns what follows it up to
  // the next heading of the same or a higher level.
  var headingList = null;
  function headingPath(el) {
    // The page's headings with their level and text, read once (innerText is costly).
    if (!headingList) headingList = wfAll("h1,h2,h3,h4,h5,h6,[role=heading]").map(function (h) {
      return { el: h, level: /^H[1-6]$/.test(h.tagName) ? Number(h.tagName[1]) : Number(h.getAttribute("aria-level") || 2), text: text(h) };
    });
    var stack = [];
    for (var i = 0; i < headingList.length; i++) {
      if (!(wfPos(headingList[i].el, el) & Node.DOCUMENT_POSITION_FOLLOWING)) break;
      while (stack.length && stack[stack.length - 1].level >= headingList[i].level) stack.pop();
      stack.push(headingList[i]);
    }
    return stack.map(function (h) { return h.text; });
  }
  function nearestHeading(el) {
    var all = wfAll("h1,h2,h3,h4,h5,h6,[role=heading]");
    var best = "";
    for (var i = 0; i < all.length; i++) {
      if (wfPos(all[i], el) & Node.DOCUMENT_POSITION_FOLLOWING) best = text(all[i]); else break;
    }
    return best;
  }
  function cellsOf(row) {
    var cells = Array.prototype.filter.call(row.children, function (c) { return /^(TD|TH)$/.test(c.tagName) || /^(cell|gridcell|columnheader|rowheader)$/.test(c.getAttribute("role") || ""); });
    var out = [];
    cells.forEach(function (c) { var span = Math.min(Number(c.getAttribute("colspan")) || 1, 50); var t = text(c); for (var k = 0; k < span; k++) out.push({ text: t, th: c.tagName === "TH" || /header/.test(c.getAttribute("role") || "") }); });
    return out;
  }

  var data = { title: document.title || "", url: location.href, headings: [], pairs: [], tables: [], groups: [], mainText: "" };

  wfAll("h1,h2,h3,h4,h5,h6,[role=heading]").forEach(function (h) {
    if (!shown(h)) return;
    var level = /^H[1-6]$/.test(h.tagName) ? Number(h.tagName[1]) : Number(h.getAttribute("aria-level")) || 2;
    var t = text(h); if (t) data.headings.push({ level: level, text: t });
  });

  // Labelled fields.
  wfAll("input,select,textarea,output,meter,progress").forEach(function (c) {
    if (c.type === "hidden" || c.type === "password") return;
    var keys = [];
    if (c.labels) Array.prototype.forEach.call(c.labels, function (l) { var t = labelText(l, c); if (t) keys.push(t); });
    var aria = c.getAttribute("aria-label"); if (aria) keys.push(clean(aria));
    var by = c.getAttribute("aria-labelledby");
    if (by) by.split(/\s+/).forEach(function (id) { var r = wfById(c, id); if (r) keys.push(text(r)); });
    if (!keys.length && c.getAttribute("placeholder")) keys.push(clean(c.getAttribute("placeholder")));
    if (!keys.length && c.getAttribute("name")) keys.push(c.getAttribute("name"));
    var value = controlValue(c);
    keys.forEach(function (k) {
      var pair = { key: k.replace(/[:：*]\s*$/, "").trim(), value: value, source: "label" };
      if (c.type === "checkbox" || c.type === "radio") pair.checked = c.checked;
      data.pairs.push(pair);
    });
  });

  // Definition lists.
  wfAll("dt").forEach(function (dt) {
    if (!shown(dt)) return;
    var values = []; var n = dt.nextElementSibling;
    while (n && n.tagName !== "DT") { if (n.tagName === "DD") values.push(text(n)); n = n.nextElementSibling; }
    if (values.length) data.pairs.push({ key: text(dt).replace(/[:：]\s*$/, ""), value: values.join(", "), source: "dl" });
  });

  // Definition lists as records too: [{ term, definition }].
  wfAll("dl").forEach(function (dl) {
    if (!shown(dl)) return;
    var items = [];
    Array.prototype.forEach.call(dl.querySelectorAll("dt"), function (dt) {
      if (dt.closest("dl") !== dl || items.length >= MAX_ITEMS) return;
      var values = []; var n = dt.nextElementSibling;
      while (n && n.tagName !== "DT") { if (n.tagName === "DD") values.push(text(n)); n = n.nextElementSibling; }
      var term = text(dt).replace(/[:：]\s*$/, ""); var definition = values.join(" ");
      items.push({ text: term + ": " + definition, fields: [
        { keys: ["term", "name", "title", "key", "word", "label"], value: term, weight: 0.9 },
        { keys: ["definition", "description", "value", "meaning", "text", "details"], value: definition, weight: 0.9 }
      ] });
    });
    if (items.length) data.groups.push({ context: clean(dl.getAttribute("aria-label") || "") || precedingContext(dl) || nearestHeading(dl), tag: "dl", items: items, section: headingPath(dl) });
  });

  // Tables: header tables, and key/value rows.
  var tableEls = wfAll("table,[role=table],[role=grid],[role=treegrid]");
  Array.prototype.forEach.call(tableEls, function (table) {
    if (!shown(table)) return;
    var rows = table.tagName === "TABLE" ? Array.prototype.slice.call(table.rows) : Array.prototype.slice.call(table.querySelectorAll("[role=row]"));
    rows = rows.filter(function (r) { return r.closest("table,[role=table],[role=grid],[role=treegrid]") === table; });
    if (!rows.length) return;
    var headers = [];
    var bodyRows = rows;
    var thead = table.tagName === "TABLE" ? table.tHead : null;
    if (thead && thead.rows.length) {
      headers = cellsOf(thead.rows[thead.rows.length - 1]).map(function (c) { return c.text; });
      bodyRows = rows.filter(function (r) { return r.parentElement !== thead; });
    } else {
      var first = cellsOf(rows[0]);
      if (first.length > 1 && first.every(function (c) { return c.th; })) { headers = first.map(function (c) { return c.text; }); bodyRows = rows.slice(1); }
    }
    var matrix = [], rowSections = [], current = "";
    bodyRows.forEach(function (r) {
      var cells = cellsOf(r);
      if (!cells.length) return;
      var raw = Array.prototype.filter.call(r.children, function (c) { return /^(TD|TH)$/.test(c.tagName) || c.hasAttribute("role"); }).length;
      // A section row spanning the table: the rows after it, up to the next one, lie under it.
      if (raw === 1 && (headers.length > 1 || cells.length > 1)) { current = cells[0].text; return; }
      if (cells.length === 2 && (cells[0].th || !headers.length)) data.pairs.push({ key: cells[0].text.replace(/[:：]\s*$/, ""), value: cells[1].text, source: "table" });
      if (matrix.length < MAX_ITEMS) { matrix.push(cells.map(function (c) { return c.text; })); rowSections.push(current); }
    });
    var caption = "";
    if (table.tagName === "TABLE" && table.caption) caption = text(table.caption);
    if (!caption) caption = clean(table.getAttribute("aria-label") || table.getAttribute("summary") || "");
    if (!caption && table.getAttribute("aria-labelledby")) { var lb = wfById(table, table.getAttribute("aria-labelledby")); if (lb) caption = text(lb); }
    if (!caption && table.closest("figure")) { var fc = table.closest("figure").querySelector("figcaption"); if (fc) caption = text(fc); }
    if (!caption) caption = precedingContext(table);
    data.tables.push({ caption: caption, context: nearestHeading(table), headers: headers, rows: matrix, section: headingPath(table), rowSections: rowSections });
  });

  // "Key: value" lines in leaf blocks.
  var BLOCKS = "p,li,div,span,dd,td,section,article,small,strong,b,em,label";
  (document.body ? wfAll(BLOCKS) : []).forEach(function (el) {
    if (el.querySelector("p,li,div,section,article,table,ul,ol,dl") || !shown(el)) return;
    var raw = el.innerText || "";
    raw.split(/\n+/).forEach(function (line) {
      var m = line.match(/^\s*([^:：\n]{1,60}?)\s*[:：]\s*(\S.*?)\s*$/);
      if (m && !/^https?$/i.test(m[1])) data.pairs.push({ key: clean(m[1]), value: clean(m[2]), source: "text" });
    });
  });
  // aria-label on non-interactive elements that show a value.
  wfAll("[aria-label]").forEach(function (el) {
    if (/^(INPUT|SELECT|TEXTAREA|BUTTON|A)$/.test(el.tagName) || !shown(el)) return;
    var t = text(el); if (t && t.length < 200) data.pairs.push({ key: clean(el.getAttribute("aria-label")), value: t, source: "aria" });
  });

  // Repeated items: siblings with the same tag and classes.
  function signature(el) { return el.tagName + "." + Array.prototype.slice.call(el.classList).sort().join("."); }
  function splitWords(s) { return (s || "").replace(/([a-z])([A-Z])/g, "$1 $2").replace(/[-_]+/g, " ").trim(); }
  function itemFields(item) {
    var fields = [];
    var nodes = [item].concat(Array.prototype.slice.call(item.querySelectorAll("*")));
    // The item's own text: the whole of a plain item (a list of names), and its "Key: value" lines.
    if (!item.querySelector("p,li,div,section,article,table,ul,ol,dl,h1,h2,h3,h4,h5,h6")) {
      var whole = text(item);
      if (whole) fields.push({ keys: ["text", "name", "title", "label", "value"], value: whole, weight: 0.6 });
    }
    (item.innerText || "").split(/\n+/).forEach(function (line) {
      var lm = line.match(/^\s*([^:：\n]{1,60}?)\s*[:：]\s*(\S.*?)\s*$/);
      if (lm && !/^https?$/i.test(lm[1])) fields.push({ keys: [clean(lm[1])], value: clean(lm[2]), weight: 1 });
    });
    nodes.forEach(function (el) {
      if (!shown(el)) return;
      var tag = el.tagName.toLowerCase();
      var keys = [];
      Array.prototype.forEach.call(el.classList, function (c) { keys.push(splitWords(c)); });
      ["itemprop", "data-field", "data-name", "data-key", "data-testid", "data-test", "name", "aria-label", "title"].forEach(function (a) { var v = el.getAttribute(a); if (v && v.length < 60) keys.push(splitWords(v)); });
      for (var ak = 0; ak < el.attributes.length; ak++) { var an = el.attributes[ak].name; if (/^data-/.test(an) && el.attributes[ak].value && el.attributes[ak].value.length < 200 && !/^data-(field|name|key|testid|test)$/.test(an)) fields.push({ keys: [splitWords(an.slice(5))], value: el.attributes[ak].value, weight: 1 }); }
      var leafish = !el.querySelector("p,li,div,section,article,table,ul,ol,dl,h1,h2,h3,h4,h5,h6");
      var t = leafish ? text(el) : "";
      if (el !== item && leafish && t) {
        if (keys.length) fields.push({ keys: keys, value: t, weight: 1 });
        if (/^h[1-6]$/.test(tag) || el.getAttribute("role") === "heading") fields.push({ keys: ["title", "name", "heading"], value: t, weight: 0.8 });
        if (tag === "p") fields.push({ keys: ["description", "text", "summary"], value: t, weight: 0.7 });
        if (tag === "a") fields.push({ keys: ["link", "name", "title"], value: t, weight: 0.6 });
        if (tag === "time") fields.push({ keys: ["date", "time"], value: el.getAttribute("datetime") || t, weight: 0.8 });
        if (tag === "input" || tag === "select" || tag === "textarea") fields.push({ keys: keys, value: controlValue(el), weight: 1 });
        var m = t.match(/^([^:：]{1,60}?)\s*[:：]\s*(\S.*)$/);
        if (m) fields.push({ keys: [clean(m[1])], value: clean(m[2]), weight: 1 });
      }
      if (tag === "dt") { var dd = el.nextElementSibling; if (dd && dd.tagName === "DD") fields.push({ keys: [text(el).replace(/[:：]\s*$/, "")], value: text(dd), weight: 1 }); }
      if (tag === "tr") { var cs = cellsOf(el); if (cs.length === 2) fields.push({ keys: [cs[0].text.replace(/[:：]\s*$/, "")], value: cs[1].text, weight: 1 }); }
      if (tag === "label" && el.control) fields.push({ keys: [labelText(el, el.control)], value: controlValue(el.control), weight: 1 });
      if (tag === "a" && el.getAttribute("href")) fields.push({ keys: ["url", "href", "link"], value: el.href, weight: 0.7 });
      if (tag === "img") {
        if (el.getAttribute("src")) fields.push({ keys: ["image", "img", "src", "picture", "photo", "thumbnail"], value: el.src, weight: 0.7 });
        if (el.getAttribute("alt")) fields.push({ keys: ["alt"].concat(keys), value: el.getAttribute("alt"), weight: 0.7 });
      }
    });
    return fields;
  }
  var groupCount = 0;
  var everything = !document.body ? [] : !wfShadow() ? Array.prototype.slice.call(document.body.querySelectorAll("*"))
    : wfAll("*").filter(function (el) { return el.getRootNode() !== document || (el !== document.body && document.body.contains(el)); });
  everything.forEach(function (parent) {
    if (groupCount > 200 || /^(TABLE|THEAD|TBODY|TFOOT|TR|SELECT|DATALIST|HEAD|SCRIPT|STYLE|svg|SVG)$/.test(parent.tagName)) return;
    var kids = Array.prototype.filter.call(parent.children, function (c) { return !/^(SCRIPT|STYLE|TEMPLATE|BR|HR)$/.test(c.tagName); });
    if (kids.length < 2) return;
    var bySig = {};
    kids.forEach(function (k) { var s = signature(k); (bySig[s] = bySig[s] || []).push(k); });
    // Siblings alone in their signature that share their first class (a block and its modifier:
    // "opblock opblock-get", "opblock opblock-post") are one group too.
    var byBlock = {};
    kids.forEach(function (k) { if (bySig[signature(k)].length === 1 && k.classList.length) { var b = k.tagName + "." + k.classList[0] + "~"; (byBlock[b] = byBlock[b] || []).push(k); } });
    Object.keys(byBlock).forEach(function (b) { if (byBlock[b].length > 1) bySig[b] = byBlock[b]; });
    Object.keys(bySig).forEach(function (s) {
      var members = bySig[s].filter(shown);
      if (members.length < 2) return;
      if (!/^(LI|DT|DD)/.test(s) && !members.some(function (m) { return m.children.length > 0; })) return;
      groupCount++;
      var items = members.slice(0, MAX_ITEMS).map(function (m) { return { text: text(m), fields: itemFields(m) }; });
      var context = clean(parent.getAttribute("aria-label") || "") || precedingContext(parent) || nearestHeading(parent);
      data.groups.push({ context: context, tag: members[0].tagName.toLowerCase(), items: items, section: headingPath(members[0]) });
    });
  });

  // Counters: "2 items left", "Completed (3)": a number and what it counts, in one small element.
  data.counters = [];
  (document.body ? wfAll("span,div,p,strong,b,small,li,output,label,footer,td,h1,h2,h3,h4,h5,h6") : []).forEach(function (el) {
    if (data.counters.length >= 50 || el.childElementCount > 3 || el.querySelector("p,li,div,table,ul,ol,button,a,input,select") || el.closest("button,a,[role=button],select,option") || !shown(el)) return;
    var t = text(el);
    if (t.length > 60) return;
    var m = t.match(/^(\d[\d,.]*)\s+([A-Za-z][A-Za-z' -]{0,40})$/) || null;
    var label = m ? m[2] : "", value = m ? m[1] : "";
    if (!m) { var m2 = t.match(/^([A-Za-z][A-Za-z' -]{0,40}?)\s*\(\s*(\d[\d,.]*)\s*\)$/); if (m2) { label = m2[1]; value = m2[2]; } }
    if (!label) return;
    label = clean(label);
    for (var i = 0; i < data.counters.length; i++) if (data.counters[i].label === label && data.counters[i].value === value) return;
    data.counters.push({ label: label, value: value });
  });
  // Checklists: a list whose every item holds exactly one checkbox.
  data.checklists = [];
  function boxOf(item) {
    var boxes = item.querySelectorAll("input[type=checkbox],[role=checkbox]");
    return boxes.length === 1 ? boxes[0] : null;
  }
  everything.forEach(function (parent) {
    if (data.checklists.length >= 20 || /^(SELECT|TABLE|THEAD|TBODY|TR)$/.test(parent.tagName)) return;
    var kids = Array.prototype.filter.call(parent.children, function (c) { return !/^(SCRIPT|STYLE|TEMPLATE|BR|HR)$/.test(c.tagName) && shown(c); });
    if (kids.length < 2 || !kids.every(boxOf)) return;
    var items = kids.slice(0, MAX_ITEMS).map(function (k) {
      var box = boxOf(k);
      var checked = box.tagName === "INPUT" ? box.checked : box.getAttribute("aria-checked") === "true";
      return { text: wfItemText(k), checked: checked };
    });
    data.checklists.push({ context: clean(parent.getAttribute("aria-label") || "") || precedingContext(parent) || nearestHeading(parent), items: items });
  });

  var main = document.querySelector("main,[role=main],article") || document.body;
  data.mainText = main ? text(main).slice(0, 20000) : "";
  return data;
  }`,
)() as () => PageData;

/**
 * Scrolls the window, or, when the window cannot scroll that way, the largest scrollable element
 * (apps that scroll a container, not the page). `to` is `"up"`, `"down"`, `"top"` or `"bottom"`;
 * `px` the distance for up/down (`null`: 90% of the viewport or container height). Returns the
 * distance scrolled in px (signed) and what scrolled.
 */
export const scrollPage = new Function(
  String.raw`return function (arg) {
    var to = arg[0], px = arg[1];
    var candidates = [document.scrollingElement || document.documentElement];
    var all = document.body ? document.body.querySelectorAll("*") : [];
    var extra = [];
    for (var i = 0; i < all.length; i++) {
      var el = all[i];
      if (el.scrollHeight - el.clientHeight < 2) continue;
      var oy = getComputedStyle(el).overflowY;
      if (oy === "auto" || oy === "scroll" || oy === "overlay") extra.push(el);
    }
    extra.sort(function (a, b) { return b.clientHeight * b.clientWidth - a.clientHeight * a.clientWidth; });
    candidates = candidates.concat(extra);
    for (var j = 0; j < candidates.length; j++) {
      var c = candidates[j];
      var isRoot = j === 0;
      var view = isRoot ? window.innerHeight : c.clientHeight;
      var before = isRoot ? window.scrollY : c.scrollTop;
      var top = to === "top" ? 0 : to === "bottom" ? c.scrollHeight : before + (to === "up" ? -1 : 1) * (px == null ? Math.round(view * 0.9) : px);
      if (isRoot) window.scrollTo({ top: top, behavior: "instant" }); else c.scrollTo({ top: top, behavior: "instant" });
      var after = isRoot ? window.scrollY : c.scrollTop;
      if (after !== before || j === candidates.length - 1) {
        return { dy: after - before, what: isRoot ? "page" : (c.id ? "#" + c.id : c.tagName.toLowerCase()) };
      }
    }
    return { dy: 0, what: "page" };
  }`,
)() as (arg: [to: "up" | "down" | "top" | "bottom", px: number | null]) => { dy: number; what: string };
