/**
 * The element that shows a text (in-page code, built from a string as `index.ts` explains): what a
 * check recipe is derived from (`../lock/check-recipe.ts`). The text is compared folded
 * (whitespace, case, curly quotes and dashes aside) with each element's rendered text
 * (`innerText`); the elements kept are the innermost ones that show it whole (no element inside
 * them shows it too). Each comes with a CSS selector that finds it by position, anchored on the
 * nearest ancestor with a unique `id` or `data-testid`, never by its text: its text may change
 * while it stays the same element. The main frame only; shadow roots are not entered.
 */

/**
 * `page.evaluate(elementsShowing, text)`: the innermost elements whose rendered text shows `text`,
 * at most 10, each with its selector (`#orders > div:nth-of-type(2) > span:nth-of-type(1)`) and its
 * text folded.
 */
export const elementsShowing = new Function(
  String.raw`return function (want) {
    function fold(s) {
      return String(s || "").replace(/[\u2018\u2019\u201b\u2032]/g, "'").replace(/[\u201c\u201d\u201f\u2033]/g, '"')
        .replace(/[\u2010-\u2015\u2212]/g, "-").replace(/\s+/g, " ").trim().toLowerCase();
    }
    function unique(selector) {
      try { return document.querySelectorAll(selector).length === 1; } catch (e) { return false; }
    }
    function path(el) {
      var parts = [];
      for (var n = el; n && n.nodeType === 1; n = n.parentElement) {
        if (n.id && unique("#" + CSS.escape(n.id))) { parts.unshift("#" + CSS.escape(n.id)); return parts.join(" > "); }
        var testId = n.getAttribute("data-testid");
        var byTestId = testId ? '[data-testid="' + testId.replace(/["\\]/g, "\\$&") + '"]' : "";
        if (byTestId && unique(byTestId)) { parts.unshift(byTestId); return parts.join(" > "); }
        if (n === document.documentElement) { parts.unshift("html"); break; }
        var i = 1;
        for (var s = n.previousElementSibling; s; s = s.previousElementSibling) if (s.localName === n.localName) i++;
        parts.unshift(CSS.escape(n.localName) + ":nth-of-type(" + i + ")");
      }
      return parts.join(" > ");
    }
    var w = fold(want);
    if (!w || !document.body) return [];
    var hits = [];
    var all = document.body.querySelectorAll("*");
    for (var i = 0; i < all.length; i++) {
      var el = all[i];
      if (el.tagName === "SCRIPT" || el.tagName === "STYLE" || el.tagName === "TEMPLATE") continue;
      if (fold(el.innerText).indexOf(w) >= 0) hits.push(el);
    }
    var inner = hits.filter(function (h) { return !hits.some(function (o) { return o !== h && h.contains(o); }); });
    return inner.slice(0, 10).map(function (el) { return { selector: path(el), text: fold(el.innerText) }; });
  }`,
)() as (text: string) => Array<{ selector: string; text: string }>;
