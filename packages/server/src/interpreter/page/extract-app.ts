/**
 * In-page helpers of the ASK extraction (`extract.ts`) for application UIs (issue 32): the scope an
 * element lies in (a shown tab panel, an open dialog), values labelled by an icon or by a sibling
 * element, what a repeated item's text is by its shape (a version, a licence), the chips beside a
 * name, an alert's severity, the heading a code block lies under. Source text pasted into the
 * extraction's function, which defines `clean`, `text`, `shown` and `splitWords` (see `extract.ts`).
 */

/** The helpers, as source text pasted into the extraction's function body. */
export const EXTRACT_APP_SOURCE = String.raw`
  var REGION_SELECTOR = "[role=tabpanel],[role=dialog],[role=alertdialog],dialog[open]";
  var BLOCK_SELECTOR = "p,li,div,section,article,table,ul,ol,dl,h1,h2,h3,h4,h5,h6,pre";
  // A label's words as the accessibility tree has them: textContent, not innerText (no CSS text-transform).
  function regionLabel(r) {
    var label = clean(r.getAttribute("aria-label") || "");
    var by = r.getAttribute("aria-labelledby");
    if (!label && by) label = clean(by.split(/\s+/).map(function (id) { var e = wfById(r, id); return e ? e.textContent : ""; }).join(" "));
    if (!label && r.getAttribute("role") === "tabpanel" && r.id) {
      var tabs = wfAll("[role=tab]");
      for (var i = 0; i < tabs.length; i++) if (tabs[i].getAttribute("aria-controls") === r.id) { label = clean(tabs[i].textContent); break; }
    }
    return label;
  }
  var regionMemo = new Map();
  // The tab panel or open dialog an element lies in (the innermost), as { kind, label }; null when none.
  function regionElement(el) { return el && el.closest ? el.closest(REGION_SELECTOR) : null; }
  function regionOf(el) {
    var r = regionElement(el);
    if (!r) return null;
    var hit = regionMemo.get(r);
    if (!hit) { hit = { kind: r.getAttribute("role") === "tabpanel" ? "tab" : "dialog", label: regionLabel(r) }; regionMemo.set(r, hit); }
    return hit;
  }
  function withRegion(obj, el) { var r = regionOf(el); if (r) obj.region = r; return obj; }
  function leafish(el) { return !el.querySelector(BLOCK_SELECTOR); }
  // An icon's label: aria-label, title, an svg <title>, else the name in its data-testid ("UnpackedSizeIcon": "Unpacked Size").
  function iconLabel(icon) {
    var label = icon.getAttribute("aria-label") || icon.getAttribute("title") || "";
    if (!label && icon.tagName.toLowerCase() === "img") label = icon.getAttribute("alt") || "";
    if (!label) { var t = icon.querySelector("title"); if (t) label = t.textContent; }
    if (!label) { var id = icon.getAttribute("data-testid") || ""; if (/Icon$/.test(id)) label = splitWords(id.replace(/(Outlined|Rounded|Sharp|TwoTone)?Icon$/, "")); }
    return clean(label);
  }
  // The value an icon labels: the text of its smallest ancestor (3 up at most) that has text, when that
  // ancestor holds no other icon and is not a control (an icon in a button names the button).
  function iconValue(icon) {
    if (icon.closest("button,a,[role=button],[role=tab],label")) return "";
    var node = icon.parentElement;
    for (var up = 0; node && up < 3; up++, node = node.parentElement) {
      var t = text(node);
      if (!t) continue;
      if (t.length > 200 || node.querySelectorAll("svg,img,[role=img]").length > 1 || !leafishBut(node, 2)) return "";
      return t;
    }
    return "";
  }
  // True when el holds at most n blocks (a list item's icon box and text box).
  function leafishBut(el, n) { return el.querySelectorAll(BLOCK_SELECTOR).length <= n; }
  function iconPairs(each) {
    wfAll("svg,img,[role=img]").forEach(function (icon) {
      if (!shown(icon)) return;
      var key = iconLabel(icon);
      if (!key || key.length > 60) return;
      var value = iconValue(icon);
      if (value && value !== key) each(key, value, icon);
    });
  }
  // The one leaf an element's text sits in, through wrappers that hold nothing else (MUI's nested
  // Box divs): el itself when it holds no block, else its only child, and so on; null when a wrapper
  // holds several elements (a row of its own, a label beside an empty value) or text beside them.
  function soleLeaf(el) {
    for (var depth = 0; el && depth < 6; depth++) {
      if (leafish(el)) return el;
      for (var c = el.firstChild; c; c = c.nextSibling) if (c.nodeType === 3 && /\S/.test(c.nodeValue)) return null;
      var inner = Array.prototype.filter.call(el.children, function (k) { return !/^(SCRIPT|STYLE|TEMPLATE)$/.test(k.tagName); });
      if (inner.length !== 1) return null;
      el = inner[0];
    }
    return null;
  }
  function elementKids(el) { return Array.prototype.filter.call(el.children, function (k) { return !/^(SCRIPT|STYLE|TEMPLATE)$/.test(k.tagName); }); }
  var CONTROL_SELECTOR = "input,select,textarea,button,[role=button]";
  // A text that may be a label: short, a few words, not a sentence, not a number alone.
  function labelLike(key) { return !!key && key.length <= 40 && key.split(" ").length <= 4 && !/[:：.!?]$/.test(key) && !/^[\d\W]+$/.test(key); }
  function isHeading(el) { return /^H[1-6]$/.test(el.tagName) || el.getAttribute("role") === "heading"; }
  // A value: not code (a code block is read under its heading), not an action (a button names what it does).
  function valueLike(el) { return !el.matches("pre," + CONTROL_SELECTOR) && !el.querySelector("pre," + CONTROL_SELECTOR); }
  // A label and its value written as two sibling elements with nothing else beside them ("Published" /
  // "3 days ago", MUI's ListItemText primary / secondary, a Stack row), each possibly wrapped in
  // elements that hold nothing else: the first short, neither holding more than one text.
  function siblingPair(el) {
    if (el.children.length < 2 || el.children.length > 3 || /^(TR|TABLE|TBODY|THEAD|UL|OL|DL|SELECT|BUTTON|A|LABEL|H1|H2|H3|H4|H5|H6)$/.test(el.tagName)) return null;
    // textContent first: it needs no layout, and most elements are no pair.
    var kids = Array.prototype.filter.call(el.children, function (k) { return !/^(SCRIPT|STYLE|TEMPLATE|BR|HR)$/.test(k.tagName) && /\S/.test(k.textContent || ""); });
    if (kids.length !== 2 || kids[0].querySelector("input,select,textarea,button,a") || !valueLike(kids[1])) return null;
    var keyEl = soleLeaf(kids[0]), valueEl = soleLeaf(kids[1]);
    // A heading and what follows it are a section, not a label and its value.
    if (!keyEl || !valueEl || isHeading(keyEl) || isHeading(kids[0]) || !shown(kids[0])) return null;
    var key = text(keyEl), value = text(valueEl);
    if (!key || !value) return null;
    if (!labelLike(key) || key === value || value.length > 200) return null;
    return { key: clean(keyEl.textContent), value: value, valueEl: valueEl };
  }
  // An overline caption (MUI's Typography variant="overline", Vuetify's text-overline…) names the value below it.
  function isOverline(el) {
    for (var i = 0; i < el.classList.length; i++) if (/overline/i.test(el.classList[i])) return true;
    return false;
  }
  // The value an overline caption labels: the next element with text after it (after the wrappers that
  // hold only the caption), through wrappers that hold nothing else; not another caption, not code.
  function overlinePair(caption, within) {
    var key = clean(caption.textContent);
    if (!labelLike(key) || !shown(caption)) return null;
    // Up through the wrappers that hold only the caption; the value is the very next element (an empty one is an empty value).
    var node = caption;
    while (node.parentElement && node.parentElement !== within && node.parentElement !== document.body && elementKids(node.parentElement).length === 1) node = node.parentElement;
    var next = node.nextElementSibling;
    while (next && /^(SCRIPT|STYLE|TEMPLATE|BR)$/.test(next.tagName)) next = next.nextElementSibling;
    if (!next || next.tagName === "HR" || isOverline(next) || next.querySelector("[class*=overline i]") || !valueLike(next)) return null;
    var leaf = soleLeaf(next);
    var value = leaf ? text(leaf) : "";
    if (!value || value.length > 200 || value === key) return null;
    return { key: key, value: value, valueEl: leaf };
  }
  function overlinePairs(root, each) {
    Array.prototype.forEach.call(root.querySelectorAll("[class*=overline i]"), function (caption) {
      if (!isOverline(caption)) return;
      var pair = overlinePair(caption, root === document ? null : root);
      if (pair) each(pair.key, pair.value, caption, pair.valueEl);
    });
  }
  // Label and value cells alternating in one container (a Grid of xs=5 / xs=7 items): every cell one
  // text (a value cell may be empty), the labels of one layout and the values of another, at least
  // two pairs; anything else (a missing cell, a third layout, a label that is no label) and the
  // container gives none.
  function alternatingPairs(el) {
    var kids = Array.prototype.filter.call(el.children, function (k) { return !/^(SCRIPT|STYLE|TEMPLATE|BR|HR)$/.test(k.tagName); });
    if (kids.length < 4 || kids.length % 2 || kids.length > 80) return null;
    var sigA = kids[0].tagName + "." + kids[0].className, sigB = kids[1].tagName + "." + kids[1].className;
    if (sigA === sigB) return null;
    var out = [];
    for (var i = 0; i < kids.length; i += 2) {
      var a = kids[i], b = kids[i + 1];
      if (a.tagName + "." + a.className !== sigA || b.tagName + "." + b.className !== sigB || !valueLike(b) || a.querySelector("input,select,textarea,button,a")) return null;
      var keyEl = soleLeaf(a), valueEl = soleLeaf(b);
      if (!keyEl || !valueEl || isHeading(keyEl) || isOverline(keyEl)) return null;
      var key = text(keyEl), value = text(valueEl);
      if (!labelLike(key) || value.length > 200 || key === value) return null;
      // An empty value cell keeps its place: that label shows no value.
      if (value) out.push({ key: clean(keyEl.textContent), value: value, valueEl: valueEl });
    }
    return out;
  }
  // What a text is by its shape alone: a version ("v5.0.1", "5.1.0-beta.2"), an SPDX licence identifier.
  var VERSION_SHAPE = /^v?\d+\.\d+\.\d+(?:[-+][0-9A-Za-z.-]+)?$/;
  var LICENSES = /^(?:MIT|ISC|0BSD|Unlicense|UNLICENSED|WTFPL|CC0-1\.0|Zlib|Apache-2\.0|BSD-[23]-Clause|MPL-2\.0|EPL-2\.0|(?:A|L)?GPL-[23]\.0(?:-only|-or-later)?|BlueOak-1\.0\.0|Python-2\.0|Artistic-2\.0)$/;
  function shapeFields(t) {
    var out = [];
    if (VERSION_SHAPE.test(t)) out.push({ keys: ["version"], value: t, weight: 0.7 });
    if (LICENSES.test(t)) out.push({ keys: ["license", "licence"], value: t, weight: 0.7 });
    return out;
  }
  // Chips, tags and badges inside an item: the outermost element whose class names one (MUI's MuiChip-root).
  function isChip(el) {
    for (var i = 0; i < el.classList.length; i++) if (/(?:^|[-_\s])(?:chip|tag|badge|pill)s?(?:$|[-_\s])/i.test(splitWords(el.classList[i]).replace(/ /g, "-")) && !/label|icon|avatar|delete/i.test(el.classList[i])) return true;
    return false;
  }
  function chipValues(item) {
    var out = [];
    Array.prototype.forEach.call(item.querySelectorAll("*"), function (el) {
      if (!isChip(el) || !shown(el)) return;
      for (var p = el.parentElement; p && p !== item; p = p.parentElement) if (isChip(p)) return;
      var t = text(el);
      if (t && t.length <= 40) out.push(t);
    });
    return out;
  }
  // An alert's severity from its classes or attributes.
  function severityOf(el) {
    var said = [el.getAttribute("data-severity"), el.getAttribute("data-status"), el.getAttribute("data-variant"), el.getAttribute("data-type"), el.className && el.className.baseVal === undefined ? el.className : ""].join(" ");
    var m = said.match(/(?:^|[-_\s]|color|filled|standard|outlined)(error|danger|warning|warn|info|success)(?:$|[-_\s])/i) || said.match(/(Error|Danger|Warning|Info|Success)\b/);
    if (!m) return "";
    var s = m[1].toLowerCase();
    return s === "danger" ? "error" : s === "warn" ? "warning" : s;
  }
  // The nearest heading before el within its own part of the page: back through its and its ancestors'
  // earlier siblings, not past a landmark or scope (an aside, a tab panel, a dialog).
  function headingBefore(el) {
    for (var node = el; node && node !== document.body; node = node.parentElement) {
      for (var prev = node.previousElementSibling; prev; prev = prev.previousElementSibling) {
        if (!shown(prev)) continue;
        if (/^H[1-6]$/.test(prev.tagName) || prev.getAttribute("role") === "heading") return text(prev);
        // An overline caption names the block right below it ("Install" above "npm i …"), as its words are written.
        if (isOverline(prev) && prev === node.previousElementSibling) return clean(prev.textContent);
        var inner = prev.querySelectorAll("h1,h2,h3,h4,h5,h6,[role=heading]");
        for (var i = inner.length - 1; i >= 0; i--) if (shown(inner[i])) return text(inner[i]);
      }
      if (node.parentElement && node.parentElement.matches("aside,nav,header,footer,[role=complementary],[role=navigation]," + REGION_SELECTOR)) break;
    }
    return "";
  }
  // The tab panels (shown or not), the tabs whose panel the page has not rendered, and the open dialogs.
  function regionList() {
    var out = [], seen = {};
    wfAll(REGION_SELECTOR).forEach(function (r) {
      var tab = r.getAttribute("role") === "tabpanel", visible = shown(r);
      if (!tab && !visible) return;
      var reg = regionOf(r);
      out.push({ kind: reg.kind, label: reg.label, shown: visible });
      if (tab) seen[reg.label] = true;
    });
    wfAll("[role=tab]").forEach(function (t) {
      var label = clean(t.textContent);
      if (label && !seen[label]) { seen[label] = true; out.push({ kind: "tab", label: label, shown: false }); }
    });
    return out.slice(0, 40);
  }
  function codeBlocks() {
    return wfAll("pre").filter(shown).slice(0, 50).map(function (pre) {
      return { heading: headingBefore(pre), text: (pre.innerText || pre.textContent || "").replace(/\s+$/, "").slice(0, 5000) };
    });
  }
`;
