/**
 * The in-page half of the page view: walks one frame's document once, through open shadow roots,
 * and returns what a person sees as lines that follow the page's structure (headings, paragraphs,
 * list items, table rows with their headers, definition terms with or without definitions, form
 * rows, named landmarks, dialogs, code blocks line by line, live status text, images and icons the
 * accessibility tree names as `[img "name"]`), with every visible
 * interactive element written as `[eN] role "name"` and a selector kept so the server can act on
 * it. An iframe is a marker line; the server reads that frame with the same script and stitches its
 * lines in at the marker (see `view.ts`). No line is cut here: the budget is the server's.
 *
 * Each line's text marks what is the view's own (role words, quotes around names, states, table
 * borders, `- `, `#`, `status:` …) apart from the page's own text, so the server can tell page
 * content from view markup (a model's quote is checked against page content only; see
 * `view-source.ts`): the marks are control characters the server removes before the model sees
 * the line ({@link VIEW_MARKS}).
 * Plain JavaScript source for the reason given in `index.ts`.
 */
import { DESCRIBE_SOURCE } from "./source.js";
import { FACTS_SOURCE, VIEW_ROLE_SOURCE, type ElementFacts } from "./facts.js";

/**
 * The marks a line's text carries (control characters no page text keeps: the walk removes them
 * from what it reads): `markup` around the view's own words, `hidden` around page text the model
 * is not shown (a name too long for the line, or one written with escapes), `link` around a link's
 * target as the page writes it, `element` around a reference (`\u0005e12\u0006` opens the
 * element's rendering, `\u0005\u0006` closes it).
 */
export const VIEW_MARKS = {
  markup: ["\u0001", "\u0002"],
  hidden: ["\u0003", "\u0004"],
  element: ["\u0005", "\u0006"],
  link: ["\u000e", "\u000f"],
} as const;

/** One line of the page view, as the page script returns it. */
export interface ViewLine {
  /** The text of the line, without indentation, with its {@link VIEW_MARKS}. */
  t: string;
  /** Nesting depth (lists, landmarks, dialogs, frames), for indentation. */
  d: number;
  /** Heading level 1–6, or 0 when the line is not a heading. */
  h: number;
  /** For a table row: the index of its table's header line (repeated when a reduced view cuts the table), else -1. */
  th: number;
  /** True inside an open dialog (dialogs are what a person looks at first). */
  dlg: boolean;
  /** Number of element references on the line. */
  refs: number;
  /** On an iframe's marker line: the index of the frame in {@link RawFrameView.frames}. */
  fr?: number;
}

/** An element the view refers to by its reference (`e12`, or `f1e3` inside the first frame read). */
export interface ViewElement {
  ref: string;
  role: string;
  name: string;
  /**
   * A Playwright selector for it within its frame: a `css=` path of `:nth-child()` steps from
   * `html`, through open shadow roots (Playwright's CSS engine pierces them).
   */
  selector: string;
  /** Selectors of the iframes it sits in, outermost first; empty in the main frame. */
  frames: string[];
  /** What it is, as a verb needs to know (disabled, a text field, a file input…): what a model's plan is checked against. */
  facts: ElementFacts;
}

/** What {@link snapshotPageView} returns for one frame. */
export interface RawFrameView {
  title: string;
  url: string;
  lines: ViewLine[];
  /** The frame's own elements (their `frames` are empty: the server fills them in). */
  elements: ViewElement[];
  /** Selectors of the iframes the marker lines stand for (`ViewLine.fr` indexes this). */
  frames: string[];
}

/** Options of the in-page walk. */
export interface PageViewScriptOptions {
  /** Write link targets (`→ /path`) after links: useful to read, noise to act. */
  linkUrls: boolean;
  /** Write each element's reference (`[e12] button "Save"`): what an ACT's model answers with; a question's view has none. */
  refs: boolean;
  /** Prefix of this frame's references: `""` in the main frame (`e1`), `f2` in the second frame read (`f2e1`). */
  prefix: string;
}

/**
 * A `css=` selector for an element: `:nth-child()` steps from `html`, a shadow root's children
 * stepping from its host. Shared by the walk and by the server, which needs the selector of an
 * iframe element to match a child frame to its marker.
 */
const CSS_PATH_SOURCE = String.raw`
  function cssPath(el) {
    var parts = [];
    for (var n = el; n && n.nodeType === 1; ) {
      var parent = n.parentNode;
      var tag = n.localName;
      if (!parent || parent.nodeType === 9) { parts.unshift(CSS.escape(tag)); break; }
      var i = 1;
      for (var s = n.previousElementSibling; s; s = s.previousElementSibling) i++;
      parts.unshift(CSS.escape(tag) + ":nth-child(" + i + ")");
      n = parent.nodeType === 11 ? parent.host : parent;
    }
    return "css=" + parts.join(" > ");
  }
`;

/** `elementHandle.evaluate(selectorOfElement)`: the selector the page view gives an element (an iframe's, to match it to its frame). */
export const selectorOfElement = new Function(`return function (el) {${CSS_PATH_SOURCE} return cssPath(el); }`)() as (element: Element) => string;

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

/**
 * `locator.evaluateAll(identifyViewElements)`: the role, accessible name, (for a link) resolved
 * `href`, and facts and visibility (as `elementFacts` reads them) of every element a locator
 * matches, in one round trip: what the check before an action judges, so it need not read them again.
 */
export const identifyViewElements = new Function(
  String.raw`return function (els) {${DESCRIBE_SOURCE}${VIEW_ROLE_SOURCE}${FACTS_SOURCE}
    return els.map(function (el) {
      var facts = wfFacts(el);
      facts.visible = wfVisible(el);
      return { role: role(el), name: (wfName(el) || "").replace(/\s+/g, " ").trim(), href: el.tagName === "A" && el.href ? String(el.href) : "", facts: facts };
    });
  }`,
)() as (elements: Element[]) => Array<{ role: string; name: string; href: string; facts: ElementFacts & { visible: boolean } }>;

/** `frame.evaluate(snapshotPageView, options)`: one frame's view. */
export const snapshotPageView = new Function(
  String.raw`return function (opts) {${DESCRIBE_SOURCE}${VIEW_ROLE_SOURCE}${FACTS_SOURCE}${CSS_PATH_SOURCE}
    var INTERACTIVE = { button: 1, link: 1, checkbox: 1, radio: 1, "switch": 1, tab: 1, menuitem: 1, menuitemcheckbox: 1,
      menuitemradio: 1, option: 1, treeitem: 1, combobox: 1, textbox: 1, searchbox: 1, spinbutton: 1, slider: 1, listbox: 1 };
    var SKIP = { SCRIPT: 1, STYLE: 1, NOSCRIPT: 1, TEMPLATE: 1, HEAD: 1, META: 1, LINK: 1, OBJECT: 1, EMBED: 1, CANVAS: 1, svg: 1, SVG: 1 };
    // Landmarks and groups that get a line of their own when they have a name (their content is indented under it).
    var LANDMARK = { navigation: 1, region: 1, form: 1, search: 1, complementary: 1, banner: 1, contentinfo: 1, main: 1, group: 1, tabpanel: 1, menu: 1, toolbar: 1 };
    var lines = [];
    var elements = [];
    var frames = [];
    var depth = 0;
    var inDialog = false;
    var prefix = opts.prefix || "";
    var styles = new Map();
    var blockInside = new Map();

    // The view's marks (VIEW_MARKS): the page's own text never carries them (clean removes them).
    var MO = "\u0001", MC = "\u0002", HO = "\u0003", HC = "\u0004", EO = "\u0005", EC = "\u0006", LO = "\u000e", LC = "\u000f";
    var MARKS = /[\u0001-\u0006\u000e\u000f]/g;
    function clean(s) { return (s || "").replace(MARKS, ""); }
    // Page text: marks removed, whitespace folded.
    function norm(s) { return clean(s).replace(/\s+/g, " ").trim(); }
    // A built line (marks kept): whitespace folded and trimmed as the line is shown (runs that
    // marks split are one run; hidden text and element tags are not shown).
    function tidy(s) {
      s = s || "";
      var out = "", hiddenText = false, tag = false, space = true, spaceAt = -1;
      for (var i = 0; i < s.length; i++) {
        var c = s[i];
        if (c === EO) tag = true;
        else if (c === EC) tag = false;
        else if (c === HO) hiddenText = true;
        else if (c === HC) hiddenText = false;
        if (tag || hiddenText || c === EC || c === HC || c === MO || c === MC || c === LO || c === LC) { out += c; continue; }
        if (/\s/.test(c)) {
          if (space) continue;
          space = true;
          spaceAt = out.length;
          out += " ";
          continue;
        }
        space = false;
        out += c;
      }
      return space && spaceAt >= 0 ? out.slice(0, spaceAt) + out.slice(spaceAt + 1) : out;
    }
    function clip(s, n) { return s.length > n ? s.slice(0, n - 1) + "…" : s; }
    // The view's own words.
    function mk(s) { return s ? MO + s + MC : ""; }
    // Page text in quotes (the quotes are the view's); written with escapes or clipped, the view
    // shows the quoted form and keeps the text itself hidden beside it.
    function q(s, n) {
      var shown = JSON.stringify(n ? clip(s, n) : s);
      return shown === '"' + s + '"' ? mk('"') + s + mk('"') : mk(shown) + HO + s + HC;
    }
    function style(el) { var s = styles.get(el); if (!s) { s = getComputedStyle(el); styles.set(el, s); } return s; }
    function hidden(el) {
      if (el.getAttribute && el.getAttribute("aria-hidden") === "true") return true;
      if (el.tagName === "INPUT" && (el.type || "").toLowerCase() === "hidden") return true;
      if (el.tagName === "DIALOG" && !el.open) return true;
      if (el.tagName === "SLOT") return false;
      // display: contents has no box of its own, so checkVisibility says false; its children decide.
      if (style(el).display === "contents") return false;
      return !wfVisible(el);
    }
    // The nodes an element shows: an open shadow root's children instead of its own, a slot's assigned nodes (or its fallback).
    function kids(el) {
      if (el.shadowRoot) return Array.prototype.slice.call(el.shadowRoot.childNodes);
      if (el.tagName === "SLOT") {
        var assigned = el.assignedNodes({ flatten: true });
        return assigned.length ? assigned : Array.prototype.slice.call(el.childNodes);
      }
      return Array.prototype.slice.call(el.childNodes);
    }
    function elementKids(el) { return kids(el).filter(function (c) { return c.nodeType === 1; }); }
    // An ARIA listbox (not a <select>) is a block whose options are the elements: see listbox().
    function interactive(el) { var r = role(el); return INTERACTIVE[r] === 1 && el.tagName !== "OPTION" && !(r === "listbox" && el.tagName !== "SELECT"); }
    function isListbox(el) { return el.tagName !== "SELECT" && role(el) === "listbox"; }
    function isFrame(el) { return el.tagName === "IFRAME" || el.tagName === "FRAME"; }
    function ownBlock(el) {
      if (el.tagName === "SLOT" || style(el).display === "contents") return false;
      var d = style(el).display;
      return !(d === "inline" || d === "inline-block" || d === "inline-flex" || d === "inline-grid");
    }
    // A block for the layout of the view: block-level itself, or inline but holding a block (an
    // inline-flex card, a span wrapping divs), or a frame. Memoised: the walk asks it of every element.
    function isBlock(el) {
      if (isFrame(el)) return true;
      // A label around its control is a form row: a line of its own.
      if (el.tagName === "LABEL" && el.control && el.contains(el.control) && el.control.type !== "hidden") return true;
      if (ownBlock(el) && el.tagName !== "SLOT" && style(el).display !== "contents") return true;
      var known = blockInside.get(el);
      if (known !== undefined) return known;
      var found = false;
      var list = elementKids(el);
      for (var i = 0; i < list.length && !found; i++) {
        var c = list[i];
        if (SKIP[c.tagName] || hidden(c) || interactive(c)) continue;
        if (isBlock(c)) found = true;
      }
      blockInside.set(el, found);
      return found;
    }
    function hasBlockChild(el) {
      var list = elementKids(el);
      for (var i = 0; i < list.length; i++) {
        var c = list[i];
        if (SKIP[c.tagName] || hidden(c)) continue;
        if (!interactive(c) && isBlock(c)) return true;
      }
      return false;
    }
    var STRUCTURAL = /^(UL|OL|DL|TABLE|PRE|MENU|DIALOG|H[1-6])$/;
    // Content that reads as one line: no block children, or one block child (a p in a dd) that is itself such content.
    function flat(el) {
      if (isFrame(el) || STRUCTURAL.test(el.tagName) || isPre(el)) return false;
      var blocks = elementKids(el).filter(function (c) { return !SKIP[c.tagName] && !hidden(c) && !interactive(c) && isBlock(c); });
      return blocks.length === 0 || (blocks.length === 1 && flat(blocks[0]) && !kids(el).some(function (n) { return n.nodeType === 3 && n.nodeValue.trim(); }));
    }
    function isPre(el) {
      var ws = style(el).whiteSpace;
      return el.tagName === "PRE" || ((ws === "pre" || ws === "pre-wrap" || ws === "break-spaces") && el.tagName !== "TEXTAREA");
    }
    function control(el) {
      var facts = wfFacts(el);
      var r = facts.role;
      var name = norm(wfName(el));
      var ref = prefix + "e" + (elements.length + 1);
      elements.push({ ref: ref, role: r, name: name, selector: cssPath(el), frames: [], facts: facts });
      var s = EO + ref + EC + mk((opts.refs ? "[" + ref + "] " : "") + r + (name ? " " : "")) + (name ? q(name, 300) : "");
      var tag = el.tagName;
      // What it shows, when that is not its name (CSS text-transform, an aria-label over other words, aria-hidden text).
      var field = tag === "INPUT" || tag === "TEXTAREA" || tag === "SELECT" || el.isContentEditable || r === "listbox" || r === "combobox" || r === "textbox" || r === "searchbox";
      if (!field) {
        var shows = norm(wfText(el));
        var clipped = name.length > 1 && name.charAt(name.length - 1) === "…" && shows.indexOf(name.slice(0, -1)) === 0;
        if (shows && shows !== name && !clipped) s += mk(" (shows ") + q(shows, 80) + mk(")");
      }
      // A field without a name: the text that describes it (a helper line tied by aria-describedby), after its value.
      var described = "";
      if (field && !name && el.getAttribute("aria-describedby")) {
        described = norm(el.getAttribute("aria-describedby").split(/\s+/).map(function (id) { var d = id ? wfById(el, id) : null; return d ? wfText(d) : ""; }).join(" "));
      }
      if (tag === "INPUT" || tag === "TEXTAREA") {
        var type = (el.type || "").toLowerCase();
        if (type === "checkbox" || type === "radio") s += mk(el.checked ? " (checked)" : " (not checked)");
        else if (type === "password") s += mk(el.value ? " = (hidden)" : " = (empty)");
        else if (type === "file") {
          var files = Array.prototype.map.call(el.files || [], function (f) { return clean(f.name); });
          s += mk(" (file input)") + (files.length ? mk(" = ") + q(files.join(", ")) : mk(" = (no file)"));
        } else if (type !== "button" && type !== "submit" && type !== "reset" && type !== "image") {
          s += el.value ? mk(" = ") + q(clean(el.value)) : mk(" = (empty)");
          var ph = clean(el.getAttribute("placeholder"));
          if (ph && ph.trim() && ph.trim() !== name) s += mk(" placeholder ") + q(ph.trim());
        }
      } else if (tag === "SELECT") {
        var chosen = Array.prototype.filter.call(el.options, function (o) { return o.selected; }).map(function (o) { return norm(o.label || o.text); });
        s += mk(" = ") + q(chosen.join(", "));
        var all = Array.prototype.map.call(el.options, function (o) { return norm(o.label || o.text); }).filter(Boolean);
        s += mk(" options: ") + all.slice(0, 200).map(function (o) { return q(o); }).join(mk(", ")) + (all.length > 200 ? mk(", … (" + all.length + " in all)") : "");
      } else if (el.isContentEditable) {
        s += mk(" = ") + q(norm(el.innerText));
      } else {
        var checked = el.getAttribute("aria-checked"), pressed = el.getAttribute("aria-pressed"), expanded = el.getAttribute("aria-expanded"), selected = el.getAttribute("aria-selected");
        if (checked === "true" || checked === "false") s += mk(checked === "true" ? " (checked)" : " (not checked)");
        if (pressed === "true") s += mk(" (pressed)");
        if (expanded === "true" || expanded === "false") s += mk(expanded === "true" ? " (expanded)" : " (collapsed)");
        if (selected === "true") s += mk(" (selected)");
        if (opts.linkUrls && tag === "A" && el.getAttribute("href")) {
          var href = clean(el.getAttribute("href"));
          // A link into the same document reads as its fragment alone.
          if (el.hash && el.href.split("#")[0] === location.href.split("#")[0]) href = clean(el.hash);
          // A target too long for the line is shown clipped, as the view's own text.
          if (!/^javascript:/i.test(href)) s += mk(" → ") + (href.length > 300 ? mk(clip(href, 300)) : LO + href + LC);
        }
      }
      if (described) s += mk(" description ") + q(described, 200);
      if (facts.disabled) s += mk(" (disabled)");
      else if (facts.readOnly) s += mk(" (read-only)");
      return s + EO + EC;
    }
    // An image the accessibility tree names, as "[img "name"]": an <img> by its alt text, an <svg> or
    // role=img by its aria-label (aria-labelledby, an svg's <title>); "" for one it leaves out
    // (aria-hidden is left out before this is asked, like any hidden element).
    function isImage(el) { return el.tagName === "IMG" || el.tagName === "svg" || el.tagName === "SVG" || el.getAttribute("role") === "img"; }
    function image(el) {
      var tag = el.tagName, r = el.getAttribute("role");
      var n = "";
      if (tag === "IMG") n = norm(el.getAttribute("alt"));
      else if ((tag === "svg" || tag === "SVG" || r === "img") && r !== "presentation" && r !== "none") {
        n = norm(el.getAttribute("aria-label") || (el.getAttribute("aria-labelledby") ? wfAccName(el) : ""));
        if (!n && (tag === "svg" || tag === "SVG")) { var t = el.querySelector("title"); if (t) n = norm(t.textContent); }
      }
      return n ? mk("[img ") + q(n) + mk("]") : "";
    }
    // Inline content of an element: text, with controls as references and images by their names.
    function inline(el) {
      var out = "";
      var list = kids(el);
      for (var i = 0; i < list.length; i++) {
        var c = list[i];
        if (c.nodeType === 3) { out += clean(c.nodeValue); continue; }
        if (c.nodeType !== 1 || hidden(c)) continue;
        if (!interactive(c) && isImage(c)) { var img = image(c); if (img) out += " " + img + " "; continue; }
        if (SKIP[c.tagName]) continue;
        if (interactive(c)) { out += " " + control(c) + " "; continue; }
        if (c.tagName === "BR") { out += " "; continue; }
        if (isFrame(c)) continue;
        var b = ownBlock(c);
        out += (b ? " " : "") + inline(c) + (b ? " " : "");
      }
      return out;
    }
    function push(text, h, th) {
      // The spaces set around a reference do not stay before punctuation ("… [e3] link "Table 8.2".").
      text = tidy(text).replace(/(\[(?:f\d+)?e\d+\] [^\[]*?) ([.,;:!?)])(?=\s|$)/g, "$1$2").replace(/\( ((?:\u0005[^\u0006]*\u0006)?\u0001\[(?:f\d+)?e\d+\])/g, "($1");
      if (!text) return -1;
      var refs = (text.match(/\[(?:f\d+)?e\d+\]/g) || []).length;
      lines.push({ t: text, d: depth, h: h || 0, th: th === undefined ? -1 : th, dlg: inDialog, refs: refs });
      return lines.length - 1;
    }
    // A code block (pre, or white-space: pre; highlighted token spans included): its text line by
    // line, controls as references. Blank lines dropped, indentation kept (trimmed of the block's common indent).
    function code(el) {
      var out = "";
      (function collect(n) {
        var list = kids(n);
        for (var i = 0; i < list.length; i++) {
          var c = list[i];
          if (c.nodeType === 3) { out += clean(c.nodeValue); continue; }
          if (c.nodeType !== 1 || SKIP[c.tagName] || hidden(c)) continue;
          if (interactive(c)) { out += control(c); continue; }
          if (c.tagName === "BR") { out += "\n"; continue; }
          var b = ownBlock(c) && !isPre(c);
          if (b && out && out[out.length - 1] !== "\n") out += "\n";
          collect(c);
          if (b && out && out[out.length - 1] !== "\n") out += "\n";
        }
      })(el);
      var rows = out.replace(/\r/g, "").replace(/\t/g, "  ").split("\n").filter(function (l) { return l.trim(); });
      // Indentation is kept as one space a level: the block's common indent removed, its smallest step as the level.
      var leads = rows.map(function (l) { return l.length - l.replace(/^ +/, "").length; });
      var indent = Math.min.apply(null, leads.concat([Infinity]));
      var unit = leads.reduce(function (m, k) { return k > indent && k - indent < m ? k - indent : m; }, Infinity);
      rows.forEach(function (l, i) {
        var text = tidy(l);
        if (!text) return;
        var level = unit === Infinity ? 0 : Math.min(12, Math.round((leads[i] - indent) / unit));
        var refs = (text.match(/\[(?:f\d+)?e\d+\]/g) || []).length;
        lines.push({ t: new Array(level + 1).join(" ") + text, d: depth, h: 0, th: -1, dlg: inDialog, refs: refs });
      });
    }
    // A table: one line a row ("| a | b |"), its header row remembered for a reduced view. A cell
    // holding blocks (a code block, a list, a nested table) shows "(below)" in its row and its
    // content follows the row, indented under the cell's column header.
    var EMPTY_CELL = mk("-");
    function row_(texts) { return mk("| ") + texts.join(mk(" | ")) + mk(" |"); }
    function table(el) {
      var caption = el.caption ? norm(el.caption.innerText) : norm(el.getAttribute("aria-label"));
      var header = -1, heads = [];
      // Rows are indented under a caption; without one they need no indent of their own.
      if (caption) { push(mk("table ") + q(caption) + mk(":")); depth++; }
      var rows = el.rows || [];
      for (var i = 0; i < rows.length; i++) {
        var row = rows[i];
        if (hidden(row)) continue;
        var cells = Array.prototype.filter.call(row.cells, function (c) { return !hidden(c); });
        var deep = [];
        var texts = cells.map(function (c, k) {
          if (flat(c) || !hasBlockChild(c)) return tidy(inline(c)) || EMPTY_CELL;
          deep.push([k, c]);
          return mk("(below)");
        });
        if (!texts.length) continue;
        var isHead = cells.every(function (c) { return c.tagName === "TH"; }) || (row.parentElement && row.parentElement.tagName === "THEAD");
        if (isHead && (header === -1 || row.parentElement.tagName === "THEAD")) {
          var at = push(row_(texts), 0, header);
          if (header === -1) { header = at; heads = texts; }
        } else {
          push(row_(texts), 0, header);
        }
        deep.forEach(function (d) {
          push(heads[d[0]] && heads[d[0]] !== EMPTY_CELL ? heads[d[0]] + mk(":") : mk("cell " + (d[0] + 1) + ":"));
          depth++;
          children(d[1]);
          depth--;
        });
      }
      if (caption) depth--;
    }
    // An ARIA listbox (an autocomplete's suggestions, a custom dropdown's list): its line, then each
    // option on a line of its own under it (groups' labels as lines), each option an element.
    function listbox(el) {
      push(control(el) + mk(":"));
      depth++;
      (function options(n) {
        var list = elementKids(n);
        for (var k = 0; k < list.length; k++) {
          var c = list[k];
          if (SKIP[c.tagName] || hidden(c)) continue;
          if (interactive(c)) push(control(c));
          else if (isListbox(c)) listbox(c);
          else if (elementKids(c).some(function (g) { return interactive(g) || elementKids(g).length; })) options(c);
          else push(inline(c));
        }
      })(el);
      depth--;
    }
    function list(el) {
      var items = elementKids(el);
      for (var k = 0; k < items.length; k++) {
        var li = items[k];
        if (hidden(li) || SKIP[li.tagName]) continue;
        // A menu's item, a tree's item: an element, not a list item's words.
        if (interactive(li)) { push(control(li)); continue; }
        if (li.tagName !== "LI" && li.getAttribute("role") !== "listitem") { walk(li); continue; }
        item(li);
      }
    }
    // A list item: its own inline words on one line ("- "), its nested blocks (sub-lists, paragraphs, tables) indented under it.
    function item(li) {
      var text = "", nested = [];
      var list = kids(li);
      for (var i = 0; i < list.length; i++) {
        var c = list[i];
        if (c.nodeType === 3) { text += clean(c.nodeValue); continue; }
        if (c.nodeType !== 1 || SKIP[c.tagName] || hidden(c)) continue;
        if (interactive(c)) { text += " " + control(c) + " "; continue; }
        if (!isBlock(c)) { text += " " + inline(c) + " "; continue; }
        if (!text.trim() && !nested.length && flat(c)) { text += " " + inline(c) + " "; continue; }
        nested.push(c);
      }
      push(tidy(text) ? mk("- ") + text : mk("-"));
      depth++;
      nested.forEach(walk);
      depth--;
    }
    // A definition list: "term: definition" when the definition is a few inline words; a term alone
    // when it has none (a table of contents entry without sub-entries); a definition with blocks
    // (a nested list of sub-entries) indented under its term.
    function dl(el) {
      var term = null;
      var flushTerm = function () { if (term !== null) push(term); term = null; };
      var list = elementKids(el);
      for (var i = 0; i < list.length; i++) {
        var c = list[i];
        if (SKIP[c.tagName] || hidden(c)) continue;
        if (c.tagName === "DT") { flushTerm(); term = inline(c); if (!tidy(term)) term = null; continue; }
        if (c.tagName === "DD") {
          if (flat(c)) {
            var def = tidy(inline(c));
            if (term !== null) { push(tidy(term) + (def ? mk(": ") + def : "")); term = null; } else push(def);
          } else {
            flushTerm();
            depth++;
            children(c);
            depth--;
          }
          continue;
        }
        if (c.tagName === "DIV") { flushTerm(); dl(c); continue; }
        flushTerm();
        walk(c);
      }
      flushTerm();
    }
    function landmarkName(el, r) {
      var tag = el.tagName;
      if (tag === "FIELDSET") { var lg = el.querySelector(":scope > legend"); return lg ? norm(lg.innerText) : ""; }
      if (!r && tag !== "NAV" && tag !== "SECTION" && tag !== "FORM" && tag !== "ASIDE") return "";
      return norm(el.getAttribute("aria-label") || (el.getAttribute("aria-labelledby") ? wfName(el) : ""));
    }
    function landmarkRole(el, r) {
      if (r) return LANDMARK[r] ? r : "";
      return { NAV: "navigation", SECTION: "region", FORM: "form", ASIDE: "complementary", FIELDSET: "group" }[el.tagName] || "";
    }
    function walk(el) {
      if (el.nodeType !== 1 || hidden(el)) return;
      var tag = el.tagName, r = el.getAttribute("role");
      if (!interactive(el) && isImage(el)) { var img = image(el); if (img) push(img); return; }
      if (SKIP[tag]) return;
      if (isFrame(el)) {
        var title = norm(el.getAttribute("title") || el.getAttribute("aria-label") || el.getAttribute("name") || "");
        frames.push(cssPath(el));
        lines.push({ t: mk("iframe" + (title ? " " + JSON.stringify(title) : "") + ":"), d: depth, h: 0, th: -1, dlg: inDialog, refs: 0, fr: frames.length - 1 });
        return;
      }
      if (interactive(el)) { push(control(el)); return; }
      if (isListbox(el)) { listbox(el); return; }
      if (/^H[1-6]$/.test(tag) || r === "heading") {
        var level = /^H[1-6]$/.test(tag) ? Number(tag[1]) : Number(el.getAttribute("aria-level") || 2);
        push(mk(new Array(level + 1).join("#") + " ") + inline(el), level);
        return;
      }
      if (tag === "TABLE" && r !== "presentation" && r !== "none") { table(el); return; }
      if (tag === "UL" || tag === "OL" || tag === "MENU" || r === "list") { list(el); return; }
      if (tag === "LI" || r === "listitem") { item(el); return; }
      if (tag === "DL") { dl(el); return; }
      if (tag === "DIALOG" || r === "dialog" || r === "alertdialog") {
        var wasIn = inDialog;
        var dn = norm(el.getAttribute("aria-label") || (el.getAttribute("aria-labelledby") ? wfName(el) : ""));
        push(mk((r === "alertdialog" ? "alertdialog" : "dialog") + (dn ? " " : "")) + (dn ? q(dn) : "") + mk(":"));
        inDialog = true; depth++;
        children(el);
        depth--; inDialog = wasIn;
        return;
      }
      if (r === "status" || r === "alert" || (el.getAttribute("aria-live") && el.getAttribute("aria-live") !== "off")) {
        if (!hasBlockChild(el)) { var said = tidy(inline(el)); if (said) push(mk(r === "alert" ? "alert: " : "status: ") + said); return; }
      }
      if (isPre(el)) { code(el); return; }
      var lr = landmarkRole(el, r), ln = lr ? landmarkName(el, r) : "";
      if (ln && !hasBlockChild(el)) { push(mk(lr + " ") + q(ln) + mk(": ") + inline(el)); return; }
      if (ln) {
        push(mk(lr + " ") + q(ln) + mk(":"));
        depth++;
        children(el);
        depth--;
        return;
      }
      if (!hasBlockChild(el)) { push(inline(el)); return; }
      children(el);
    }
    // A block with block children: runs of inline content become lines of their own.
    function children(el) {
      var run = "";
      var flush = function () { push(run); run = ""; };
      var list = kids(el);
      for (var i = 0; i < list.length; i++) {
        var c = list[i];
        if (c.nodeType === 3) { run += clean(c.nodeValue); continue; }
        if (c.nodeType !== 1 || hidden(c)) continue;
        if (!interactive(c) && isImage(c)) { var im = image(c); if (im) run += " " + im + " "; continue; }
        if (SKIP[c.tagName]) continue;
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
    return { title: document.title, url: location.href, lines: lines, elements: elements, frames: frames };
  }`,
)() as (options: PageViewScriptOptions) => RawFrameView;
