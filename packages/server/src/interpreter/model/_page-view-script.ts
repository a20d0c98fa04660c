/**
 * The in-page half of the page view: walks the top document once and returns what a person sees
 * as lines (headings, text, list items, table rows with their headers, labelled values, form
 * fields with their current values, dialogs, live status text), with every visible interactive
 * element written as `[eN] role "name"` and its XPath kept so the server can act on it.
 * Plain JavaScript source for the reason given in `../_page-scripts.ts`.
 */
import { DESCRIBE_SOURCE } from "../_page-scripts.js";

/** One line of the page view, as the page script returns it. */
export interface ViewLine {
  /** The text of the line, without indentation. */
  t: string;
  /** Nesting depth (lists, dialogs), for indentation. */
  d: number;
  /** Heading level 1–6, or 0 when the line is not a heading. */
  h: number;
  /** For a table row: the index of its table's header line (repeated when a reduced view cuts the table), else -1. */
  th: number;
  /** True inside an open dialog (dialogs are what a person looks at first). */
  dlg: boolean;
  /** Number of element references on the line. */
  refs: number;
}

/** An element the view refers to: `e1` is `elements[0]`. */
export interface ViewElement {
  role: string;
  name: string;
  /** XPath from the document root, e.g. `/html/body/main/form/button[2]`. */
  xpath: string;
}

/** What {@link snapshotPageView} returns. */
export interface RawPageView {
  title: string;
  url: string;
  lines: ViewLine[];
  elements: ViewElement[];
}

/** Options of the in-page walk. */
export interface PageViewScriptOptions {
  /** Write link targets (`→ /path`) after links: useful to read, noise to act. */
  linkUrls: boolean;
  /** Longest text of one line, in characters; longer text is cut with `…`. */
  maxLineChars: number;
}

/** The view's role of an element: the grammar's, plus clickable and editable generics. */
const VIEW_ROLE_SOURCE = String.raw`
  function role(el) {
    var r = wfRole(el);
    if (r === "text" || r === "generic") {
      if (el.isContentEditable && (!el.parentElement || !el.parentElement.isContentEditable)) return "textbox";
      if (el.hasAttribute("onclick") || (el.tabIndex >= 0 && el.hasAttribute("tabindex"))) return "button";
    }
    return r;
  }
`;

/**
 * The role and accessible name of one element, computed as the page view computes them
 * (`locator.evaluate(identifyViewElement)`): lets the server check that an element it is about to
 * act on is still the one the view showed.
 */
export const identifyViewElement = new Function(
  String.raw`return function (el) {${DESCRIBE_SOURCE}${VIEW_ROLE_SOURCE}
    return { role: role(el), name: (wfName(el) || "").replace(/\s+/g, " ").trim() };
  }`,
)() as (element: Element) => { role: string; name: string };

/** `page.evaluate(snapshotPageView, options)`. */
export const snapshotPageView = new Function(
  String.raw`return function (opts) {${DESCRIBE_SOURCE}${VIEW_ROLE_SOURCE}
    var INTERACTIVE = { button: 1, link: 1, checkbox: 1, radio: 1, "switch": 1, tab: 1, menuitem: 1, menuitemcheckbox: 1,
      menuitemradio: 1, option: 1, treeitem: 1, combobox: 1, textbox: 1, searchbox: 1, spinbutton: 1, slider: 1, listbox: 1 };
    var SKIP = { SCRIPT: 1, STYLE: 1, NOSCRIPT: 1, TEMPLATE: 1, HEAD: 1, META: 1, LINK: 1, IFRAME: 1, OBJECT: 1, EMBED: 1, CANVAS: 1, svg: 1, SVG: 1 };
    var lines = [];
    var elements = [];
    var depth = 0;
    var inDialog = false;

    function clip(s, n) { n = n || opts.maxLineChars; return s.length > n ? s.slice(0, n - 1) + "…" : s; }
    function norm(s) { return (s || "").replace(/\s+/g, " ").trim(); }
    function hidden(el) {
      if (el.getAttribute && el.getAttribute("aria-hidden") === "true") return true;
      if (el.tagName === "INPUT" && (el.type || "").toLowerCase() === "hidden") return true;
      if (el.tagName === "DIALOG" && !el.open) return true;
      // display: contents has no box of its own, so checkVisibility says false; its children decide.
      if (getComputedStyle(el).display === "contents") return false;
      return !wfVisible(el);
    }
    function xpath(el) {
      var parts = [];
      for (var n = el; n && n.nodeType === 1; n = n.parentElement) {
        var tag = n.tagName.toLowerCase();
        var i = 1, same = 0;
        for (var s = n.parentElement ? n.parentElement.firstElementChild : null; s; s = s.nextElementSibling) {
          if (s.tagName === n.tagName) { same++; if (s === n) i = same; }
        }
        parts.unshift(same > 1 ? tag + "[" + i + "]" : tag);
      }
      return "/" + parts.join("/");
    }
    function interactive(el) { return INTERACTIVE[role(el)] === 1 && !(el.tagName === "OPTION"); }
    function control(el) {
      var r = role(el);
      var name = norm(wfName(el));
      elements.push({ role: r, name: name, xpath: xpath(el) });
      var s = "[e" + elements.length + "] " + r + (name ? " " + JSON.stringify(clip(name, 120)) : "");
      var tag = el.tagName;
      if (tag === "INPUT" || tag === "TEXTAREA") {
        var type = (el.type || "").toLowerCase();
        if (type === "checkbox" || type === "radio") s += el.checked ? " (checked)" : " (not checked)";
        else if (type === "password") s += el.value ? " = (hidden)" : " = (empty)";
        else if (type !== "button" && type !== "submit" && type !== "reset" && type !== "image" && type !== "file") {
          s += el.value ? " = " + JSON.stringify(clip(el.value, 200)) : " = (empty)";
          var ph = el.getAttribute("placeholder");
          if (ph && ph.trim() && ph.trim() !== name) s += " placeholder " + JSON.stringify(clip(ph.trim(), 80));
        }
      } else if (tag === "SELECT") {
        var chosen = Array.prototype.filter.call(el.options, function (o) { return o.selected; }).map(function (o) { return norm(o.label || o.text); });
        s += " = " + JSON.stringify(chosen.join(", "));
        var all = Array.prototype.map.call(el.options, function (o) { return norm(o.label || o.text); }).filter(Boolean);
        s += " options: " + all.slice(0, 30).map(function (o) { return JSON.stringify(clip(o, 60)); }).join(", ") + (all.length > 30 ? ", … (" + all.length + " in all)" : "");
      } else if (el.isContentEditable) {
        s += " = " + JSON.stringify(clip(norm(el.innerText), 200));
      } else {
        var checked = el.getAttribute("aria-checked"), pressed = el.getAttribute("aria-pressed"), expanded = el.getAttribute("aria-expanded"), selected = el.getAttribute("aria-selected");
        if (checked === "true" || checked === "false") s += checked === "true" ? " (checked)" : " (not checked)";
        if (pressed === "true") s += " (pressed)";
        if (expanded === "true" || expanded === "false") s += expanded === "true" ? " (expanded)" : " (collapsed)";
        if (selected === "true") s += " (selected)";
        if (opts.linkUrls && tag === "A" && el.getAttribute("href")) {
          var href = el.getAttribute("href");
          if (!/^javascript:/i.test(href)) s += " → " + clip(href, 120);
        }
      }
      if (el.disabled || el.getAttribute("aria-disabled") === "true") s += " (disabled)";
      return s;
    }
    function isBlock(el) {
      var d = getComputedStyle(el).display;
      return !(d === "inline" || d === "inline-block" || d === "inline-flex" || d === "inline-grid");
    }
    // Inline content of an element: text, with controls as references and images by their alt text.
    function inline(el) {
      var out = "";
      for (var c = el.firstChild; c; c = c.nextSibling) {
        if (c.nodeType === 3) { out += c.nodeValue; continue; }
        if (c.nodeType !== 1 || SKIP[c.tagName] || hidden(c)) continue;
        if (interactive(c)) { out += " " + control(c) + " "; continue; }
        if (c.tagName === "IMG") { var alt = norm(c.getAttribute("alt")); if (alt) out += " [img " + JSON.stringify(alt) + "] "; continue; }
        if (c.tagName === "BR") { out += " "; continue; }
        out += (isBlock(c) ? " " : "") + inline(c) + (isBlock(c) ? " " : "");
      }
      return out;
    }
    function push(text, h, th) {
      text = norm(text);
      if (!text) return -1;
      var refs = (text.match(/\[e\d+\]/g) || []).length;
      lines.push({ t: clip(text), d: depth, h: h || 0, th: th === undefined ? -1 : th, dlg: inDialog, refs: refs });
      return lines.length - 1;
    }
    function hasBlockChild(el) {
      for (var c = el.firstElementChild; c; c = c.nextElementSibling) {
        if (SKIP[c.tagName] || hidden(c)) continue;
        if (isBlock(c) && !interactive(c)) return true;
      }
      return false;
    }
    function table(el) {
      var caption = el.caption ? norm(el.caption.innerText) : norm(el.getAttribute("aria-label"));
      var header = -1;
      if (caption) push("table " + JSON.stringify(caption) + ":");
      depth++;
      var rows = el.rows || [];
      for (var i = 0; i < rows.length; i++) {
        var row = rows[i];
        if (hidden(row)) continue;
        var cells = Array.prototype.filter.call(row.cells, function (c) { return !hidden(c); });
        var texts = cells.map(function (c) { return norm(inline(c)) || "-"; });
        if (!texts.length) continue;
        var isHead = cells.every(function (c) { return c.tagName === "TH"; }) || (row.parentElement && row.parentElement.tagName === "THEAD");
        if (isHead && (header === -1 || row.parentElement.tagName === "THEAD")) {
          var at = push("| " + texts.join(" | ") + " |", 0, header);
          if (header === -1) header = at;
        } else {
          push("| " + texts.join(" | ") + " |", 0, header);
        }
      }
      depth--;
    }
    function list(el) {
      for (var li = el.firstElementChild; li; li = li.nextElementSibling) {
        if (hidden(li) || SKIP[li.tagName]) continue;
        if (li.tagName !== "LI") { walk(li); continue; }
        var text = "", nested = [];
        for (var c = li.firstChild; c; c = c.nextSibling) {
          if (c.nodeType === 1 && (c.tagName === "UL" || c.tagName === "OL" || c.tagName === "TABLE" || c.tagName === "DL")) nested.push(c);
          else if (c.nodeType === 3) text += c.nodeValue;
          else if (c.nodeType === 1 && !SKIP[c.tagName] && !hidden(c)) text += interactive(c) ? " " + control(c) + " " : " " + inline(c) + " ";
        }
        push("- " + norm(text));
        depth++;
        nested.forEach(walk);
        depth--;
      }
    }
    function dl(el) {
      var term = "";
      for (var c = el.firstElementChild; c; c = c.nextElementSibling) {
        if (hidden(c)) continue;
        if (c.tagName === "DT") term = norm(inline(c));
        else if (c.tagName === "DD") push((term ? term + ": " : "") + inline(c));
        else if (c.tagName === "DIV") dl(c);
      }
    }
    function walk(el) {
      if (el.nodeType !== 1 || SKIP[el.tagName] || hidden(el)) return;
      var tag = el.tagName, r = el.getAttribute("role");
      if (interactive(el)) { push(control(el)); return; }
      if (/^H[1-6]$/.test(tag) || r === "heading") {
        var level = /^H[1-6]$/.test(tag) ? Number(tag[1]) : Number(el.getAttribute("aria-level") || 2);
        push(new Array(level + 1).join("#") + " " + inline(el), level);
        return;
      }
      if (tag === "TABLE" && r !== "presentation" && r !== "none") { table(el); return; }
      if (tag === "UL" || tag === "OL" || r === "list") { list(el); return; }
      if (tag === "DL") { dl(el); return; }
      if (tag === "DIALOG" || r === "dialog" || r === "alertdialog") {
        var wasIn = inDialog;
        var dn = norm(el.getAttribute("aria-label") || (el.getAttribute("aria-labelledby") ? wfName(el) : ""));
        push((r === "alertdialog" ? "alertdialog" : "dialog") + (dn ? " " + JSON.stringify(dn) : "") + ":");
        inDialog = true; depth++;
        children(el);
        depth--; inDialog = wasIn;
        return;
      }
      if (r === "status" || r === "alert" || (el.getAttribute("aria-live") && el.getAttribute("aria-live") !== "off")) {
        if (!hasBlockChild(el)) { push((r === "alert" ? "alert: " : "status: ") + inline(el)); return; }
      }
      if (tag === "IMG") { var alt = norm(el.getAttribute("alt")); if (alt) push("[img " + JSON.stringify(alt) + "]"); return; }
      if (tag === "PRE") { push(el.innerText); return; }
      if (!hasBlockChild(el)) { push(inline(el)); return; }
      children(el);
    }
    // A block with block children: runs of inline content become lines of their own.
    function children(el) {
      var run = "";
      var flush = function () { push(run); run = ""; };
      for (var c = el.firstChild; c; c = c.nextSibling) {
        if (c.nodeType === 3) { run += c.nodeValue; continue; }
        if (c.nodeType !== 1 || SKIP[c.tagName] || hidden(c)) continue;
        if (interactive(c) || !isBlock(c)) {
          run += interactive(c) ? " " + control(c) + " " : c.tagName === "BR" ? " " : " " + inline(c) + " ";
          if (c.tagName === "BR" && run.trim()) flush();
          continue;
        }
        flush();
        walk(c);
      }
      flush();
    }
    if (document.body) walk(document.body);
    return { title: document.title, url: location.href, lines: lines, elements: elements };
  }`,
)() as (options: PageViewScriptOptions) => RawPageView;
