/**
 * Scripts that run in the page on a locator's elements: what each is (role, accessible name,
 * visibility, twins, context: {@link describeElements}), whether it lies in the places a target
 * names ({@link inScopes}), whether the text beside a control names it ({@link nearLabelMatches}),
 * a `<select>`'s options, and the page's scroll ({@link scrollPage}).
 *
 * Written as plain JavaScript source and turned into functions with `new Function`, because
 * TypeScript loaders (tsx) wrap named functions in a `__name` helper that does not exist in the
 * page; a function built from a string keeps its source as written, which is what Playwright
 * sends to the browser (see `index.ts`).
 */
import { DESCRIBE_SOURCE } from "./source.js";
import { FACTS_SOURCE, VIEW_ROLE_SOURCE, type ElementFacts } from "./facts.js";

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
   * the one role's locator (see `actionLocator` in `locate/pick.ts`).
   */
  certainRole: string;
  /**
   * What a verb needs to know of the element itself (not of the control a label stands for), and
   * whether it is visible, as {@link elementFacts} reads them: read in the same round trip as the
   * rest, so the grammar's check before an action (`act/fit.ts`) needs no second one.
   */
  facts: ElementFacts & { visible: boolean };
  /** Set in Node when the target names scopes and this element lies outside them. */
  outOfScope?: boolean;
}

/** Describes the elements of a locator (`locator.evaluateAll(describeElements)`). */
export const describeElements = new Function(
  String.raw`return function (els) {${DESCRIBE_SOURCE}${VIEW_ROLE_SOURCE}${FACTS_SOURCE}
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
      var facts = wfFacts(el);
      facts.visible = wfVisible(el);
      return { role: wfRole(c), name: wfName(c), visible: facts.visible && wfVisible(c), sameAs: sameAs, inside: inside, href: href, samePageAnchor: samePageAnchor, context: wfContext(c, headings), fieldKey: fieldKey, certainRole: wfCertainRole(el), facts: facts };
    });
  }`,
)() as (elements: Element[]) => ElementInfo[];

/** A place a target is looked for in (see `ScopeSpec` in `grammar/target.ts`): kind and name, innermost first. */
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
          if (want === "" || named(wfDialogName(a), want) || named(wfAccName(a), want) || named(wfDialogTitle(a), want)) return true;
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
 * For each control, whether the text written beside it (not on it) is `text`: the description of a
 * control without a name (`aria-describedby`: a field's helper line), its row's first cell or
 * `<th>`, the `<dt>` before its `<dd>`, or its item's own words (a sibling `<label>` without `for`,
 * a `<span>`) — `loose`: compared folded (case, whitespace, dashes, quotes); `words`: only the
 * description, holding the text's words whole within it ("filter packages" in "Filter packages by name").
 * Answers every variant (`[loose, words]`, one a matching tier) in the same evaluation: one array of
 * flags per variant, in the order given, each with one flag per element.
 */
export const nearLabelMatches = new Function(
  String.raw`return function (els, arg) {${DESCRIBE_SOURCE}
    function matches(c, loose, words) {
      var want = loose ? wfFold(arg[0]) : arg[0].trim();
      function same(t) { return t && (loose ? wfFold(t) === want : t.replace(/\s+/g, " ").trim() === want); }
      // Words of the text, whole, inside a longer one ("filter packages" in "Filter packages by name").
      function within(t) { return Boolean(t) && (" " + wfFold(t).replace(/[^a-z0-9\u00c0-\uffff]+/g, " ") + " ").indexOf(" " + want.replace(/[^a-z0-9\u00c0-\uffff]+/g, " ").trim() + " ") >= 0; }
      // Its description (aria-describedby): the helper line of a field that has no label.
      var by = c.getAttribute("aria-describedby");
      if (by && !wfAccName(c)) {
        var described = by.split(/\s+/).map(function (id) { var d = id ? wfById(c, id) : null; return d ? wfText(d) : ""; }).join(" ");
        if (words ? within(described) : same(described)) return true;
      }
      if (words) return false;
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
    }
    return arg[1].map(function (v) { return els.map(function (c) { return matches(c, v[0], v[1]); }); });
  }`,
)() as (elements: Element[], arg: [text: string, variants: Array<[loose: boolean, words: boolean]>]) => boolean[][];

/**
 * For each element (an option, a menu item), whether the first line it shows is `text`: the name an
 * autocomplete's suggestion leads with ("react-dom" of "react-dom / React package for the DOM /
 * 18.3.1"). `loose`: compared folded (case, whitespace, dashes, quotes). Answers every variant
 * (`loose` or not, one a matching tier) in the same evaluation: one array of flags per variant, in
 * the order given, each with one flag per element.
 */
export const leadMatches = new Function(
  String.raw`return function (els, arg) {${DESCRIBE_SOURCE}
    var firsts = els.map(function (c) {
      return ((c.innerText !== undefined ? c.innerText : c.textContent) || "").split("\n").map(function (l) { return l.replace(/\s+/g, " ").trim(); }).filter(Boolean)[0] || "";
    });
    return arg[1].map(function (loose) {
      var want = loose ? wfFold(arg[0]) : arg[0].trim();
      return firsts.map(function (first) { return Boolean(first) && (loose ? wfFold(first) === want : first === want); });
    });
  }`,
)() as (elements: Element[], arg: [text: string, variants: boolean[]]) => boolean[][];

/** Options of a `<select>`, for loose option matching. */
export const listSelectOptions = new Function(
  String.raw`return function (el) {
    if (!el || el.tagName !== "SELECT") return null;
    return Array.prototype.map.call(el.options, function (o) { return { value: o.value, label: (o.label || o.textContent || "").replace(/\s+/g, " ").trim() }; });
  }`,
)() as (element: Element) => Array<{ value: string; label: string }> | null;

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
