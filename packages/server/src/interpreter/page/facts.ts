/**
 * What an element is, as a verb needs to know before it acts on it ({@link ElementFacts}): its
 * role as the page view computes it, whether it is disabled or read-only, and what kind of control
 * it is (a text field, a file input, a `<select>`, a native checkbox). Read in the page in one
 * round trip ({@link elementFacts}); the page view records the same facts for each element it
 * refers to, so a model's plan is checked against them before anything runs (`act/fit.ts` holds
 * the rules). Plain JavaScript source for the reason given in `index.ts`.
 */
import { DESCRIBE_SOURCE } from "./source.js";

/** The view's role of an element: the grammar's, plus clickable and editable generics. */
export const VIEW_ROLE_SOURCE = String.raw`
  function role(el) {
    var r = wfRole(el);
    if (r === "text" || r === "generic") {
      if (el.isContentEditable && (!el.parentElement || !el.parentElement.isContentEditable)) return "textbox";
      // Focusable or with a click handler, and showing something: an empty focusable div is a focus trap's sentinel.
      if ((el.hasAttribute("onclick") || (el.tabIndex >= 0 && el.hasAttribute("tabindex"))) && (el.firstChild || el.hasAttribute("aria-label"))) return "button";
    }
    return r;
  }
`;

/** What a verb needs to know of an element before it acts on it. */
export interface ElementFacts {
  /** Its role as the page view computes it (`button`, `checkbox`, `textbox`…). */
  role: string;
  /**
   * Disabled: natively (`disabled`, inside a disabled `<fieldset>`), or `aria-disabled="true"` on
   * it or an element around it (as Playwright's enabled check reads it).
   */
  disabled: boolean;
  /** A text field that takes no typing: `readonly`, or `aria-readonly="true"`. */
  readOnly: boolean;
  /** Takes typed text: an `<input>` of a text-like type, a `<textarea>`, or a contenteditable element. */
  editable: boolean;
  /** An `<input type=file>`, or a `<label>` of one (Playwright sets the files on its control). */
  fileInput: boolean;
  /**
   * A button or link beside one file input: the nearest element around it (at most 4 levels up)
   * that holds a file input holds exactly one (a drop zone's "browse" button).
   */
  nearFileInput: boolean;
  /** A native `<select>`. */
  nativeSelect: boolean;
  /** A native checkbox or radio button (`<input type=checkbox|radio>`). */
  nativeCheckable: boolean;
  /** Opens a popup of options (`aria-haspopup` other than `false`): a custom dropdown's button. */
  popup: boolean;
}

/**
 * In-page source of `wfFacts(el)` → {@link ElementFacts}; needs `role(el)`
 * ({@link VIEW_ROLE_SOURCE}) and the describe helpers in scope.
 */
export const FACTS_SOURCE = String.raw`
  function wfFacts(el) {
    var NOT_TEXT = { checkbox: 1, radio: 1, file: 1, button: 1, submit: 1, reset: 1, image: 1, hidden: 1, range: 1, color: 1 };
    var tag = el.tagName;
    var type = tag === "INPUT" ? (el.getAttribute("type") || "text").toLowerCase() : "";
    function isFile(n) { return !!n && n.tagName === "INPUT" && (n.getAttribute("type") || "").toLowerCase() === "file"; }
    var label = tag === "LABEL" ? (el.control || el.querySelector("input")) : null;
    var disabled = false;
    try { disabled = el.matches(":disabled"); } catch (e) { disabled = false; }
    if (!disabled && el.closest && el.closest('[aria-disabled="true"]')) disabled = true;
    var editable = (tag === "INPUT" && !NOT_TEXT[type]) || tag === "TEXTAREA" || !!el.isContentEditable;
    var readOnly = ((tag === "INPUT" || tag === "TEXTAREA") && !!el.readOnly) || el.getAttribute("aria-readonly") === "true";
    var r = role(el);
    var near = false;
    if (r === "button" || r === "link") {
      var up = el.parentElement;
      for (var i = 0; up && i < 4; i++, up = up.parentElement) {
        var files = up.querySelectorAll("input[type=file]");
        if (files.length) { near = files.length === 1; break; }
      }
    }
    var popup = el.getAttribute("aria-haspopup");
    return {
      role: r,
      disabled: disabled,
      readOnly: editable && readOnly,
      editable: editable,
      fileInput: isFile(el) || isFile(label),
      nearFileInput: near,
      nativeSelect: tag === "SELECT",
      nativeCheckable: tag === "INPUT" && (type === "checkbox" || type === "radio"),
      popup: !!popup && popup !== "false",
    };
  }
`;

/**
 * `locator.evaluate(elementFacts)`: the {@link ElementFacts} of an element, and whether it is
 * visible (as the grammar's `wfVisible` reads it), in one round trip.
 */
export const elementFacts = new Function(
  String.raw`return function (el) {${DESCRIBE_SOURCE}${VIEW_ROLE_SOURCE}${FACTS_SOURCE}
    var f = wfFacts(el);
    f.visible = wfVisible(el);
    return f;
  }`,
)() as (element: Element) => ElementFacts & { visible: boolean };
