/**
 * The script that reads what the page shows for an ASK, in one walk of the DOM: title, URL,
 * headings, labelled values, tables, repeated items, counters, checklists and the main text
 * ({@link extractPage}, {@link PageData}).
 *
 * Written as plain JavaScript source and turned into functions with `new Function`, because
 * TypeScript loaders (tsx) wrap named functions in a `__name` helper that does not exist in the
 * page; a function built from a string keeps its source as written, which is what Playwright
 * sends to the browser (see `index.ts`).
 */
import { EXTRACT_APP_SOURCE } from "./extract-app.js";
import { DESCRIBE_SOURCE } from "./source.js";

/** What the page shows, as plain data for ASK (see {@link extractPage}). */
export interface PageData {
  title: string;
  url: string;
  headings: Array<{ level: number; text: string }>;
  /** Labelled values: label + field, `dt`/`dd`, `th`/`td` rows, `Key: value` lines, `aria-label`. */
  pairs: Array<{ key: string; value: string; checked?: boolean; source: string; region?: Region }>;
  /**
   * Tables with their header texts (colspans expanded) and body rows. `rowSections`, beside `rows`:
   * the text of the section row (one cell spanning the table) each row lies under, `""` before the first.
   */
  tables: Array<{ caption: string; context: string; headers: string[]; rows: string[][]; section?: string[]; rowSections?: string[]; region?: Region }>;
  /** Counters: a number written with what it counts (`2 items left`, `Completed (3)`), outside buttons and links. */
  counters?: Array<{ label: string; value: string }>;
  /** Lists whose every item holds one checkbox (a to-do list): each item's own words and whether its box is checked. */
  checklists?: Array<{ context: string; items: Array<{ text: string; checked: boolean }> }>;
  /** Repeated sibling items (list items, cards), each as keyed fields. */
  groups: Array<{ context: string; tag: string; items: Array<{ text: string; fields: ItemField[] }>; section?: string[]; region?: Region }>;
  /* `section`: the headings the table or list lies under, outermost first (an h1, then the h2 under it…). */
  /** Text of `main` / `[role=main]` / `article`, else of `body`; whitespace collapsed, at most 20,000 characters. */
  mainText: string;
  /**
   * Each visible heading's section (full read with `sections` only): the text of what follows it up to the next
   * heading of the same or a higher level, whitespace collapsed, at most 5,000 characters; at most
   * 200 sections.
   */
  sections?: Array<{ heading: string; level: number; text: string }>;
  /**
   * The open dialogs (`<dialog open>`, `role=dialog|alertdialog`), alerts (`role=alert`) and status
   * messages (`role=status`) a person sees (full read): `label` (its `aria-label`, `aria-labelledby`
   * or first heading), text, and an alert's `severity` when its classes or attributes say it.
   */
  dialogs?: Array<{ kind: "dialog" | "alert" | "status"; label: string; text: string; severity?: Severity }>;
  /**
   * Code blocks (`pre`) a person sees (full read): each one's text as shown (line breaks kept, at
   * most 5,000 characters) and the text of the nearest heading before it; at most 50.
   */
  code?: Array<{ heading: string; text: string }>;
  /** The labelled scopes: the tab panels (by their tab's name; hidden ones and tabs with no rendered panel too, `shown: false`) and the open dialogs. */
  regions?: Region[];
  /**
   * Set on a partial read ({@link ExtractOptions.partial}): each group item's `fields` is empty and
   * `mainText` is `""`. A reader that needs either must ask for the full read (`read/page-read.ts`).
   */
  partial?: true;
}

/**
 * A scope of its own that a value, table or list lies in: a shown tab panel (`role=tabpanel`, named
 * by its tab) or an open dialog (`<dialog open>`, `role=dialog|alertdialog`; `label` may be empty).
 */
export interface Region {
  kind: "tab" | "dialog";
  label: string;
  /** In {@link PageData.regions}: false for a tab panel that is hidden (or a tab whose panel is not rendered). */
  shown?: boolean;
  /** In a question's restriction: the label was matched word for word (a "Dependencies" tab, not "Dev dependencies"). */
  exact?: boolean;
}

/** An alert's severity, when its classes or attributes say it (MUI's `MuiAlert-colorError`, `data-severity`, `alert-danger`…). */
export type Severity = "error" | "warning" | "info" | "success";

/**
 * One field of a repeated item: its keys (what names it), its text, how much the keys are trusted;
 * `values` for a field of several texts (the chips or tags beside a name), `value` then their join.
 */
export interface ItemField {
  keys: string[];
  value: string;
  weight: number;
  values?: string[];
}

/** What {@link extractPage} reads. */
export interface ExtractOptions {
  /**
   * Leaves out what most answers do not need and costs the most to read: the fields of each
   * repeated item (their keys and values; the items' text is still read) and the main text.
   * @default false
   */
  partial?: boolean;
  /**
   * Also reads each heading's section ({@link PageData.sections}; full read only): what an ASK
   * without a schema answers from. Left out
   * otherwise, for its cost on long pages (an `innerText` per block).
   * @default false
   */
  sections?: boolean;
}

/** The source of {@link extractPage}: a function expression. */
const EXTRACT_SOURCE = String.raw`function (options) {${DESCRIBE_SOURCE}${EXTRACT_APP_SOURCE}
  var MAX_ITEMS = 500;
  var partial = !!(options && options.partial);
  function clean(s) { return (s || "").replace(/[\u00a0\u202f]/g, " ").replace(/\s+/g, " ").trim(); }
  // An element's text, read once: lists, their items, captions and headings ask for the same
  // elements' text many times, and nothing here changes the document while it is read.
  var textOf = new Map();
  function text(el) {
    var t = textOf.get(el);
    if (t === undefined) { t = clean(el.innerText !== undefined ? el.innerText : el.textContent); textOf.set(el, t); }
    return t;
  }
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
    if (!headingList) headingList = wfAll("h1,h2,h3,h4,h5,h6,[role=heading]").filter(shown).map(function (h) {
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
  // The last shown heading before el; inside a tab panel or dialog, the last one inside it, else the scope's name.
  var allHeadings = null;
  function nearestHeading(el) {
    if (!allHeadings) allHeadings = wfAll("h1,h2,h3,h4,h5,h6,[role=heading]").filter(shown);
    var scope = regionElement(el);
    var best = "";
    for (var i = 0; i < allHeadings.length; i++) {
      if (!(wfPos(allHeadings[i], el) & Node.DOCUMENT_POSITION_FOLLOWING)) break;
      if (!scope || scope.contains(allHeadings[i])) best = text(allHeadings[i]);
    }
    return best || (scope ? regionOf(el).label : "");
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
      var pair = withRegion({ key: k.replace(/[:：*]\s*$/, "").trim(), value: value, source: "label" }, c);
      if (c.type === "checkbox" || c.type === "radio") pair.checked = c.checked;
      data.pairs.push(pair);
    });
  });

  // Definition lists.
  wfAll("dt").forEach(function (dt) {
    if (!shown(dt)) return;
    var values = []; var n = dt.nextElementSibling;
    while (n && n.tagName !== "DT") { if (n.tagName === "DD") values.push(text(n)); n = n.nextElementSibling; }
    if (values.length) data.pairs.push(withRegion({ key: text(dt).replace(/[:：]\s*$/, ""), value: values.join(", "), source: "dl" }, dt));
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
    if (items.length) data.groups.push(withRegion({ context: clean(dl.getAttribute("aria-label") || "") || precedingContext(dl) || nearestHeading(dl), tag: "dl", items: items, section: headingPath(dl) }, dl));
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
      if (cells.length === 2 && (cells[0].th || !headers.length)) data.pairs.push(withRegion({ key: cells[0].text.replace(/[:：]\s*$/, ""), value: cells[1].text, source: "table" }, r));
      if (matrix.length < MAX_ITEMS) { matrix.push(cells.map(function (c) { return c.text; })); rowSections.push(current); }
    });
    var caption = "";
    if (table.tagName === "TABLE" && table.caption) caption = text(table.caption);
    if (!caption) caption = clean(table.getAttribute("aria-label") || table.getAttribute("summary") || "");
    if (!caption && table.getAttribute("aria-labelledby")) { var lb = wfById(table, table.getAttribute("aria-labelledby")); if (lb) caption = text(lb); }
    if (!caption && table.closest("figure")) { var fc = table.closest("figure").querySelector("figcaption"); if (fc) caption = text(fc); }
    if (!caption) caption = precedingContext(table);
    data.tables.push(withRegion({ caption: caption, context: nearestHeading(table), headers: headers, rows: matrix, section: headingPath(table), rowSections: rowSections }, table));
  });

  // "Key: value" lines in leaf blocks.
  var BLOCKS = "p,li,div,span,dd,td,section,article,small,strong,b,em,label";
  (document.body ? wfAll(BLOCKS) : []).forEach(function (el) {
    if (el.querySelector("p,li,div,section,article,table,ul,ol,dl") || !shown(el)) return;
    var raw = el.innerText || "";
    raw.split(/\n+/).forEach(function (line) {
      var m = line.match(/^\s*([^:：\n]{1,60}?)\s*[:：]\s*(\S.*?)\s*$/);
      if (m && !/^https?$/i.test(m[1])) data.pairs.push(withRegion({ key: clean(m[1]), value: clean(m[2]), source: "text" }, el));
    });
  });
  // aria-label on non-interactive elements that show a value.
  wfAll("[aria-label]").forEach(function (el) {
    if (/^(INPUT|SELECT|TEXTAREA|BUTTON|A)$/.test(el.tagName) || !shown(el)) return;
    var t = text(el); if (t && t.length < 200) data.pairs.push(withRegion({ key: clean(el.getAttribute("aria-label")), value: t, source: "aria" }, el));
  });
  // A value beside an icon that names it (aria-label, title, the icon's name), and label/value sibling elements.
  iconPairs(function (key, value, icon) { data.pairs.push(withRegion({ key: key, value: value, source: "icon" }, icon)); });
  (document.body ? wfAll("div,li,span,p,section") : []).forEach(function (el) {
    if (el.children.length < 2) return;
    if (el.children.length >= 4) {
      var cells = alternatingPairs(el);
      if (cells && shown(el)) cells.forEach(function (c) { data.pairs.push(withRegion({ key: c.key, value: c.value, source: "siblings" }, el)); });
      return;
    }
    var pair = siblingPair(el);
    if (pair && shown(el)) data.pairs.push(withRegion({ key: pair.key, value: pair.value, source: "siblings" }, el));
  });
  // A value below an overline caption.
  if (document.body) overlinePairs(document, function (key, value, caption) { data.pairs.push(withRegion({ key: key, value: value, source: "siblings" }, caption)); });

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
    // Values a label names (a caption above, a sibling beside): read under that label, not also as a description or title by their tag.
    var labelled = new Set();
    overlinePairs(item, function (key, value, caption, valueEl) { labelled.add(valueEl); fields.push({ keys: [key], value: value, weight: 0.9 }); });
    nodes.forEach(function (el) {
      if (el === item) return;
      if (el.children.length >= 2 && el.children.length <= 3) { var sp = siblingPair(el); if (sp) { labelled.add(sp.valueEl); fields.push({ keys: [sp.key], value: sp.value, weight: 0.9 }); } }
      if (el.children.length >= 4) { var ap = alternatingPairs(el); if (ap) ap.forEach(function (c) { labelled.add(c.valueEl); fields.push({ keys: [c.key], value: c.value, weight: 0.9 }); }); }
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
        if (!labelled.has(el)) {
          if (/^h[1-6]$/.test(tag) || el.getAttribute("role") === "heading") fields.push({ keys: ["title", "name", "heading"], value: t, weight: 0.8 });
          if (tag === "p") fields.push({ keys: ["description", "text", "summary"], value: t, weight: 0.7 });
          if (tag === "a") fields.push({ keys: ["link", "name", "title"], value: t, weight: 0.6 });
          if (tag === "time") fields.push({ keys: ["date", "time"], value: el.getAttribute("datetime") || t, weight: 0.8 });
        }
        if (tag === "input" || tag === "select" || tag === "textarea") fields.push({ keys: keys, value: controlValue(el), weight: 1 });
        var m = t.match(/^([^:：]{1,60}?)\s*[:：]\s*(\S.*)$/);
        if (m) fields.push({ keys: [clean(m[1])], value: clean(m[2]), weight: 1 });
        shapeFields(t).forEach(function (f) { fields.push(f); });
      }
      if (/^(svg|img)$/.test(tag) || el.getAttribute("role") === "img") { var il = iconLabel(el), iv = il ? iconValue(el) : ""; if (iv && iv !== il) fields.push({ keys: [il], value: iv, weight: 0.9 }); }
      if (tag === "dt") { var dd = el.nextElementSibling; if (dd && dd.tagName === "DD") fields.push({ keys: [text(el).replace(/[:：]\s*$/, "")], value: text(dd), weight: 1 }); }
      if (tag === "tr") { var cs = cellsOf(el); if (cs.length === 2) fields.push({ keys: [cs[0].text.replace(/[:：]\s*$/, "")], value: cs[1].text, weight: 1 }); }
      if (tag === "label" && el.control) fields.push({ keys: [labelText(el, el.control)], value: controlValue(el.control), weight: 1 });
      if (tag === "a" && el.getAttribute("href")) fields.push({ keys: ["url", "href", "link"], value: el.href, weight: 0.7 });
      if (tag === "img") {
        if (el.getAttribute("src")) fields.push({ keys: ["image", "img", "src", "picture", "photo", "thumbnail"], value: el.src, weight: 0.7 });
        if (el.getAttribute("alt")) fields.push({ keys: ["alt"].concat(keys), value: el.getAttribute("alt"), weight: 0.7 });
      }
    });
    var chips = chipValues(item);
    if (chips.length) fields.push({ keys: ["tags", "chips", "labels", "badges"], value: chips.join(", "), values: chips, weight: 0.9 });
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
      var items = members.slice(0, MAX_ITEMS).map(function (m) { return { text: text(m), fields: partial ? [] : itemFields(m) }; });
      var context = clean(parent.getAttribute("aria-label") || "") || precedingContext(parent) || nearestHeading(parent);
      data.groups.push(withRegion({ context: context, tag: members[0].tagName.toLowerCase(), items: items, section: headingPath(members[0]) }, members[0]));
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
  data.mainText = main && !partial ? text(main).slice(0, 20000) : "";
  if (!partial && options && options.sections) {
    // Sections: what follows each heading up to the next of the same or a higher level.
    var hs = wfAll("h1,h2,h3,h4,h5,h6,[role=heading]").filter(shown).map(function (h) {
      return { el: h, level: /^H[1-6]$/.test(h.tagName) ? Number(h.tagName[1]) : Number(h.getAttribute("aria-level")) || 2 };
    });
    data.sections = [];
    hs.slice(0, 200).forEach(function (h, i) {
      var next = null;
      for (var j = i + 1; j < hs.length; j++) if (hs[j].level <= h.level) { next = hs[j].el; break; }
      var parts = [], size = 0;
      // Collects the text of sibling elements from s on, stopping at the next heading (descending into the one that holds it).
      function collect(s) {
        for (; s && size < 5000; s = s.nextElementSibling) {
          if (next && s === next) return true;
          if (next && s.contains(next)) return collect(s.firstElementChild);
          if (/^(SCRIPT|STYLE|TEMPLATE)$/.test(s.tagName) || !shown(s)) continue;
          var t = text(s);
          if (t) { parts.push(t); size += t.length; }
        }
        return false;
      }
      // From the heading up through wrappers it ends (a <div> around an <h2>), then on along the siblings.
      var node = h.el;
      while (node.parentElement && node.parentElement !== document.body && !node.nextElementSibling && !(next && node.parentElement.contains(next))) node = node.parentElement;
      collect(node.nextElementSibling);
      var t = text(h.el);
      if (t) data.sections.push({ heading: t, level: h.level, text: clean(parts.join(" ")).slice(0, 5000) });
    });
  }
  if (!partial) {
    // Dialogs, alerts and status messages a person sees (a snackbar is an alert in MUI).
    data.dialogs = [];
    wfAll("dialog[open],[role=dialog],[role=alertdialog],[role=alert],[role=status]").forEach(function (d) {
      if (data.dialogs.length >= 10 || !shown(d)) return;
      var role = d.getAttribute("role");
      var label = clean(d.getAttribute("aria-label") || "");
      var by = d.getAttribute("aria-labelledby");
      if (!label && by) label = clean(by.split(/\s+/).map(function (id) { var e = wfById(d, id); return e ? text(e) : ""; }).join(" "));
      var head = d.querySelector("h1,h2,h3,h4,h5,h6,[role=heading]");
      if (!label && head) label = text(head);
      var t = text(d);
      if (!t) return;
      var entry = { kind: role === "alert" ? "alert" : role === "status" ? "status" : "dialog", label: label, text: t.slice(0, 5000) };
      var severity = entry.kind === "dialog" ? "" : severityOf(d);
      if (severity) entry.severity = severity;
      data.dialogs.push(entry);
    });
    data.code = codeBlocks();
    data.regions = regionList();
  }
  if (partial) data.partial = true;
  return data;
  }`;

/** Walks the DOM once and returns {@link PageData} (all of it, unless `options.partial`). */
export const extractPage = new Function(`return ${EXTRACT_SOURCE}`)() as (options?: ExtractOptions) => PageData;

/**
 * {@link extractPage} returning its {@link PageData} as one JSON text, for `JSON.parse` in Node:
 * the same data (strings, numbers and booleans only), read ~4× faster on the main example, where
 * Playwright's serialiser walks a ~120 kB object value by value (~200 ms more; issue 26). Returns
 * the data itself, unserialised, when the page replaced `JSON.stringify` or gave a built-in
 * prototype a `toJSON` (Prototype.js does, on `Array`): then a JSON text would not be the data.
 */
export const extractPageJson = new Function(
  String.raw`return function (options) {
  var data = (${EXTRACT_SOURCE})(options);
  var J = window.JSON;
  var native = !!J && typeof J.stringify === "function" && /\{\s*\[native code\]\s*\}\s*$/.test(Function.prototype.toString.call(J.stringify));
  var patched = [Object, Array, String, Number, Boolean].some(function (C) { return "toJSON" in C.prototype; });
  return native && !patched ? J.stringify(data) : data;
  }`,
)() as (options?: ExtractOptions) => string | PageData;
