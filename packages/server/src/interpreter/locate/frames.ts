/**
 * The documents an element is looked for in: the page's main frame, then its iframes (same-origin
 * and cross-origin, out-of-process ones included, nested ones too), each reached through a
 * Playwright FrameLocator (`locator('iframe[title="Payment"]').contentFrame()`), so that a locator
 * built on it names its frame in `toString()` and `normalize()`. A page without iframes costs
 * nothing more than `page.frames()`.
 */
import type { Frame, FrameLocator, Page } from "playwright-core";
import type { ScopeSpec } from "../grammar/index.js";

/** One document to search. */
export interface SearchRoot {
  /** What the grammar's locators are built on: the page, or the FrameLocator that reaches the frame. */
  root: Page | FrameLocator;
  /**
   * The frames the document lies in, innermost first, each with its names (title, name,
   * aria-label, id of its `<iframe>`) and the label used to speak of it (the first of those, or
   * `""`). Empty for the main frame.
   */
  frames: Array<{ label: string; names: string[] }>;
  /** The frame itself (to evaluate in it); absent for the main frame. */
  frame?: Frame;
}

/** What {@link describeFrameElement} says of an `<iframe>`/`<frame>` element in its parent document. */
interface FrameElementInfo {
  tag: string;
  names: string[];
  /** A CSS selector unique in its document (`iframe[title="Payment"]`), or "" when no attribute tells it apart. */
  selector: string;
  /** Its index among the document's `iframe`/`frame` elements of its tag, for when there is no selector. */
  index: number;
  visible: boolean;
}

/** In-page: names and a unique selector of a frame element (built from a string: see `page/index.ts`). */
const describeFrameElement = new Function(
  String.raw`return function (el) {
    var tag = el.tagName.toLowerCase();
    var root = el.getRootNode();
    var names = [], selector = "";
    [["title", el.getAttribute("title")], ["name", el.getAttribute("name")], ["aria-label", el.getAttribute("aria-label")], ["id", el.id]].forEach(function (pair) {
      var value = (pair[1] || "").replace(/\s+/g, " ").trim();
      if (!value) return;
      names.push(value);
      if (selector) return;
      var sel = tag + "[" + pair[0] + "=" + JSON.stringify(pair[1]) + "]";
      try { if (root.querySelectorAll(sel).length === 1) selector = sel; } catch (e) {}
    });
    var all = Array.prototype.slice.call(document.querySelectorAll(tag));
    var r = el.getBoundingClientRect();
    var shown = r.width > 1 && r.height > 1 && (typeof el.checkVisibility !== "function" || el.checkVisibility({ checkVisibilityCSS: true }));
    return { tag: tag, names: names, selector: selector, index: all.indexOf(el), visible: shown };
  }`,
)() as (element: Element) => FrameElementInfo;

/**
 * The page's shown frames, depth first in the order the page attached them (a frame before the
 * frames nested in it). Hidden and zero-size frames (trackers) are left out, and so are frames
 * detached meanwhile. `[]` for a page without frames.
 */
export async function childRoots(page: Page): Promise<SearchRoot[]> {
  if (page.frames().length <= 1) return [];
  const out: SearchRoot[] = [];
  const walk = async (parent: Frame, parentRoot: Page | FrameLocator, outer: SearchRoot["frames"]): Promise<void> => {
    for (const frame of parent.childFrames()) {
      if (frame.isDetached()) continue;
      let info: FrameElementInfo;
      try {
        const element = await frame.frameElement();
        info = (await element.evaluate(describeFrameElement)) as FrameElementInfo;
        await element.dispose().catch(() => undefined);
      } catch {
        continue; // detached while we looked
      }
      if (!info.visible) continue;
      const locator = info.selector ? parentRoot.locator(info.selector) : parentRoot.locator(info.tag).nth(Math.max(0, info.index));
      const root: SearchRoot = { root: locator.contentFrame(), frames: [{ label: info.names[0] ?? "", names: info.names }, ...outer], frame };
      out.push(root);
      await walk(frame, root.root, root.frames);
    }
  };
  await walk(page.mainFrame(), page, []);
  return out;
}

/** Folds a name for comparison: case, whitespace, dashes and quotes. */
function fold(text: string): string {
  return text.toLowerCase().replace(/[\u2010-\u2015\u2212]/g, "-").replace(/[\u2018\u2019\u201c\u201d"]/g, "'").replace(/\s+/g, " ").trim();
}

/**
 * True when a document lies in the frames `scopes` name (innermost first, each `kind: "frame"`):
 * each scope names one of the frames around it, in that order from the inside out; a scope
 * without a name is any frame. The innermost scope may name a frame around the document's own
 * frame (`"Apply" in the "checkout" frame` finds it in a frame nested in "checkout").
 */
export function inFrames(root: SearchRoot, scopes: readonly ScopeSpec[]): boolean {
  let at = 0;
  for (const scope of scopes) {
    const want = fold(scope.text);
    while (at < root.frames.length && !(want === "" || root.frames[at]!.names.some((n) => fold(n) === want))) at++;
    if (at >= root.frames.length) return false;
    at++;
  }
  return true;
}

/** The documents to search for a target: the main frame first, then the frames; with frame scopes, only the frames they name. */
export async function searchRoots(page: Page, frameScopes: readonly ScopeSpec[]): Promise<SearchRoot[]> {
  const main: SearchRoot = { root: page, frames: [] };
  if (page.frames().length <= 1) return frameScopes.length ? [] : [main];
  const frames = await childRoots(page);
  if (!frameScopes.length) return [main, ...frames];
  return frames.filter((root) => inFrames(root, frameScopes));
}

/** `the "Promo code" frame of the "checkout" frame`, as the grammar writes a frame scope; "" for the main frame. */
export function framePhrase(frames: SearchRoot["frames"]): string {
  return frames.map((f, i) => `${i === 0 ? "" : "of "}the ${f.label ? `${JSON.stringify(f.label)} ` : ""}frame`).join(" ");
}
