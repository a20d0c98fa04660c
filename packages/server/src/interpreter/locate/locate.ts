/**
 * Finds the element an instruction names, the way Playwright's user-facing locators do: by role
 * and accessible name (`getByRole`), label, placeholder, text, alt text and title, then by `name`
 * or `id` attribute. Exact matches beat case-insensitive whole matches, which beat substrings
 * (substrings only for fields: fill, select, check, upload); within a tier, earlier strategies
 * beat later ones and visible elements beat hidden ones.
 */
import type { Locator, Page } from "playwright-core";
import { InterpreterError, UnexplainedNotFound } from "../errors.js";
import { childRoots, searchRoots, type SearchRoot } from "./frames.js";
import type { TargetSpec } from "../grammar/index.js";
import { closedComponents, closestCandidates, MIN_SIMILARITY } from "./candidates.js";
import { actionLocator, pick, scopePhrase, targetLabel, type FoundElement } from "./pick.js";
import { CLICKABLE, PURPOSE_ROLES, PURPOSE_STRATEGIES, strategyLocator, TIERS, type AriaRole, type Strategy, type TargetPurpose, type Tier } from "./strategies.js";
import { domStamp, isNavigationRace, isSettled, QUIET_MS, settleBeforeRead, watchRequests } from "../page/index.js";
import type { QuietMark } from "../types.js";
import { describeElements, inScopes, leadMatches, nearLabelMatches, type ElementInfo } from "../page/index.js";
import { similarity } from "../_text.js";
import { TIMED_OUT, within } from "../_clock.js";

/** Longest the search for close names of a not-found may take, in ms. */
const CANDIDATE_BUDGET_MS = 3_000;
/** Longest the one-round-trip probe of a root's text looks may take, in ms; past it, the looks run one by one. */
const PROBE_MS = 1_000;
/**
 * Most elements a main document may have for its text looks to be probed at once (`probeTextLooks`).
 * The probe's one evaluation costs about what every look costs together and, once `PROBE_MS` stops
 * waiting for it, runs on in the page and holds up each look behind it. Measured on a quiet machine,
 * an app page of cards (a not-found, second step): 3,600 elements 257 ms a step with the probe vs
 * 393 ms without; 12,000: 615 vs 730 ms; 36,000: 4,059 vs 2,199 ms (the probe ran out).
 */
const PROBE_MAX_ELEMENTS = 10_000;
/** Longest the look for closed shadow roots of a not-found may take, in ms. */
const CLOSED_LOOK_MS = 1_000;
/**
 * The step's time a look leaves for saying what it did not find, in ms: the candidate search then
 * takes what is left of it (at most {@link CANDIDATE_BUDGET_MS}). Small, so a look on an ordinary
 * page of a loaded machine is never cut short; only a page whose looks take the whole step is.
 */
export const NOT_FOUND_MARGIN_MS = 1_500;

interface Attempt {
  locator: Locator;
  infos: ElementInfo[];
  root: SearchRoot;
}

/** Describes a locator's elements; with scopes, those outside them are marked `outOfScope`. */
async function describeAll(loc: Locator, target: TargetSpec): Promise<ElementInfo[]> {
  const infos = (await loc.evaluateAll(describeElements)) as ElementInfo[];
  const scopes = target.scopes?.filter((sc) => sc.kind !== "frame");
  if (!scopes?.length || infos.length === 0) return infos;
  const flags = await loc.evaluateAll(inScopes, scopes);
  return infos.map((info, i) => (flags[i] ? info : { ...info, outOfScope: true }));
}

/**
 * One look for the target in every document of the page ({@link searchRoots}: the main frame, then
 * its frames; only the frames a frame scope names). A better tier anywhere beats a worse one; within
 * a tier, the main frame comes first, then the frames in document order.
 */
async function tryOnce(page: Page, target: TargetSpec, purpose: TargetPurpose, deadline: number, probeMain: boolean): Promise<FoundElement | Missed> {
  const roots = await searchRoots(page, target.scopes?.filter((sc) => sc.kind === "frame") ?? []);
  const result = await tryRoots(roots, target, purpose, deadline, probeMain);
  if ("locator" in result && result.root.frames.length) {
    result.found.normalized = await result.locator.normalize().then(
      (l) => l.toString(),
      () => undefined,
    );
  }
  return "locator" in result ? result.found : result;
}

/** A look that found nothing: maybe hidden matches, and whether it was cut short (`deadline`) before trying every way. */
type Missed = { hidden?: Attempt; stoppedEarly?: boolean };

/**
 * One look in each of `roots`, tier by tier. `probeMain`: whether the main document's text looks may
 * be probed at once when its first finds nothing (a small document: see `PROBE_MAX_ELEMENTS`);
 * frames' looks always run one by one.
 */
async function tryRoots(roots: SearchRoot[], target: TargetSpec, purpose: TargetPurpose, deadline: number, probeMain: boolean): Promise<{ locator: Locator; found: FoundElement; root: SearchRoot } | Missed> {
  const hinted = Boolean(target.roles?.length);
  const roles = (hinted ? target.roles! : PURPOSE_ROLES[purpose]) as AriaRole[];
  let hiddenFallback: Attempt | undefined;
  const hit = (picked: FoundElement | undefined, root: SearchRoot) => (picked ? { locator: picked.locator, found: picked, root } : undefined);

  if (!target.text) {
    // `click the last link`: any element of the hinted role.
    for (const root of roots) {
      const loc = roles.map((r) => root.root.getByRole(r)).reduce((a, b) => a.or(b));
      const infos = await describeAll(loc, target);
      const picked = hit(pick(loc, infos, target, false, undefined, root), root);
      if (picked) return picked;
    }
    return {};
  }

  // Substrings only name fields (`"Email"` for "Email address"): a click on a substring could
  // hit the wrong element (`"Sign in"` must not click "Sign in with SSO").
  const clicky = purpose === "click" || purpose === "any" || purpose === "scroll";
  const tiers = TIERS.filter((t) => (clicky ? t !== "substring" : t !== "prefix"));
  const plan = lookPlan(tiers, hinted, purpose, roles);
  // Per root: the text looks known to match nothing (see `probeTextLooks`); the controls or entries
  // every tier's `near`/`lead` look filters, with each tier's flags read in one evaluation (see
  // `filterFlags`); and their descriptions (the same elements in every tier: described once).
  const probed = new Map<SearchRoot, boolean>();
  const filters = new Map<string, Promise<Map<Tier, boolean[]> | typeof TIMED_OUT>>();
  const described = new Map<string, ElementInfo[]>();
  const flagsOf = (root: SearchRoot, strategy: "near" | "lead") => {
    const key = `${roots.indexOf(root)}:${strategy}`;
    let flags = filters.get(key);
    if (!flags) {
      flags = filterFlags(root, plan, strategy, target.text, hinted, deadline);
      filters.set(key, flags);
    }
    return flags;
  };
  for (const { tier, strategies, tierRoles } of plan) {
    for (const root of roots) {
      let textShown: boolean | undefined;
      for (const strategy of strategies) {
        // A page so large that one look takes seconds: the find's time is up, whatever is left untried.
        if (Date.now() > deadline) return { ...(hiddenFallback ? { hidden: hiddenFallback } : {}), stoppedEarly: true };
        // A visible text that the page does not show anywhere names no button either: skip the look (a not-found stays fast).
        if (strategy === "shown" && textShown === false) continue;
        const byText = strategy !== "near" && strategy !== "lead";
        if (byText && probed.get(root) === false) continue;
        const loc = strategyLocator(root.root, strategy, target.text, tier, tierRoles, hinted);
        if (!loc) continue;
        let matched: boolean[] | undefined;
        if (!byText) {
          // Which controls or entries the text beside them or their first line names, at every tier at once: none at this tier, no look.
          const flags = await flagsOf(root, strategy);
          if (flags === TIMED_OUT) return { ...(hiddenFallback ? { hidden: hiddenFallback } : {}), stoppedEarly: true };
          matched = flags.get(tier);
          if (!matched?.some(Boolean)) continue;
        }
        const key = byText ? undefined : `${roots.indexOf(root)}:${strategy}`;
        // One look on a huge page can take longer than the whole find: it is not waited for past the deadline.
        const look = (key ? described.get(key) : undefined) ?? (deadline === Infinity ? await describeAll(loc, target) : await within(describeAll(loc, target), Math.max(1, deadline - Date.now())));
        if (look === TIMED_OUT) return { ...(hiddenFallback ? { hidden: hiddenFallback } : {}), stoppedEarly: true };
        if (key) described.set(key, look);
        let infos = look;
        if (strategy === "text") textShown = hinted ? undefined : infos.length > 0;
        if (strategy === "near" && infos.length) {
          // An unnamed control stands for the text beside it.
          infos = infos.map((info, i) => (matched![i] ? { ...info, name: info.name || target.text } : { ...info, outOfScope: true }));
        }
        if (strategy === "lead" && infos.length) {
          infos = infos.map((info, i) => (matched![i] ? info : { ...info, outOfScope: true }));
        }
        if (infos.length === 0 && byText && !probed.has(root) && probeMain && root.frames.length === 0) {
          // The first text look found nothing at all: ask once whether any of this root's other text
          // looks would (one round trip instead of one each; a not-found on an app page is ~20 looks),
          // and meanwhile which controls or entries the `near`/`lead` looks would keep (both in flight at once).
          const [any] = await Promise.all([probeTextLooks(root, plan, target.text, hinted, deadline), ...(["near", "lead"] as const).filter((st) => planHas(plan, st)).map((st) => flagsOf(root, st))]);
          probed.set(root, any);
        }
        if (infos.length === 0 || infos.every((i) => i.outOfScope)) continue;
        let chosen = -1;
        const union = loc;
        const forAction = (index: number) => {
          chosen = index;
          return (strategy === "role" && actionLocator(root.root, infos, index, target.text, tier, tierRoles)) || union.nth(index);
        };
        const found = pick(loc, infos, target, false, purpose, root, forAction);
        // The report (a frame's element's normalized locator) names the match as the union does.
        if (found) return { locator: union.nth(chosen), found, root };
        if (!hiddenFallback) hiddenFallback = { locator: loc, infos, root };
      }
    }
  }
  return hiddenFallback ? { hidden: hiddenFallback } : {};
}
/** The looks of one tier, in order: its strategies and the roles they look for. */
type TierLooks = { tier: Tier; strategies: Strategy[]; tierRoles: AriaRole[] };

/** Every tier's looks for a target with text, in the order {@link tryRoots} tries them. */
function lookPlan(tiers: Tier[], hinted: boolean, purpose: TargetPurpose, roles: AriaRole[]): TierLooks[] {
  const plan: TierLooks[] = [];
  for (const tier of tiers) {
    // A prefix names clickable elements only (`click "json"` for "json — JSON encoder and decoder",
    // `click "Archive done"` for "Archive done (3)"), never a field.
    if (tier === "prefix") {
      const clickable = roles.filter((r) => CLICKABLE.has(r));
      if (clickable.length) plan.push({ tier, strategies: ["role"], tierRoles: clickable });
      continue;
    }
    const strategies = hinted ? (["role", "label", "text", "shown", "alt", "title", "placeholder", "attribute", "near", "lead"] as Strategy[]) : PURPOSE_STRATEGIES[purpose];
    plan.push({ tier, strategies, tierRoles: roles });
  }
  return plan;
}

/**
 * The tiers whose look of a strategy matches every element a look of the same strategy at each
 * listed tier matches (see `textArg`): the whole name folded holds the exact name; a
 * case-insensitive substring holds the exact name, the whole folded name and a name's start.
 */
const HOLDS: Record<Tier, Tier[]> = { exact: [], whole: ["exact"], prefix: [], substring: ["exact", "whole", "prefix"] };

/**
 * Whether any text look of `plan` (every strategy but `near` and `lead`, which filter in the page
 * by text of their own) matches any element, hidden or not, in `root`: one `count()` of their
 * union, so a target named by no text there costs one round trip instead of one per look. Exact: a
 * union that matches nothing means each of its looks would describe nothing. A look another tier's
 * look of the same strategy holds ({@link HOLDS}) is left out of the union: it adds no element,
 * only the page's work (a not-found's probe on a to-do app: ~13 ms with every tier, ~9 ms with the
 * loosest). `true` when it cannot tell in time (the looks then run as usual).
 */
async function probeTextLooks(root: SearchRoot, plan: TierLooks[], text: string, hinted: boolean, deadline: number): Promise<boolean> {
  const looks: Array<{ tier: Tier; strategy: Strategy; loc: Locator }> = [];
  for (const { tier, strategies, tierRoles } of plan) {
    for (const strategy of strategies) {
      if (strategy === "near" || strategy === "lead") continue;
      const loc = strategyLocator(root.root, strategy, text, tier, tierRoles, hinted);
      if (loc) looks.push({ tier, strategy, loc });
    }
  }
  let union: Locator | undefined;
  for (const { tier, strategy, loc } of looks) {
    if (looks.some((other) => other.strategy === strategy && HOLDS[other.tier].includes(tier))) continue;
    union = union ? union.or(loc) : loc;
  }
  if (!union) return false;
  const count = await within(
    union.count().catch(() => 1),
    Math.max(1, Math.min(PROBE_MS, deadline - Date.now())),
  );
  return count === TIMED_OUT || count > 0;
}
/** Whether any tier of `plan` tries `strategy`. */
function planHas(plan: TierLooks[], strategy: Strategy): boolean {
  return plan.some((t) => t.strategies.includes(strategy));
}

/**
 * For a `near` or `lead` look (which match every form control or list entry of their roles, then
 * keep those the text beside them or their first line names), which elements each tier of `plan`
 * keeps: one evaluation for every tier (`nearLabelMatches`/`leadMatches` answer several variants
 * at once), instead of one a tier. The elements are those of the strategy's locator, the same at
 * every tier it applies to; an empty map when it applies to none. `TIMED_OUT` past `deadline`.
 */
async function filterFlags(root: SearchRoot, plan: TierLooks[], strategy: "near" | "lead", text: string, hinted: boolean, deadline: number): Promise<Map<Tier, boolean[]> | typeof TIMED_OUT> {
  let loc: Locator | undefined;
  const tiers: Tier[] = [];
  for (const { tier, strategies, tierRoles } of plan) {
    if (!strategies.includes(strategy)) continue;
    const tierLoc = strategyLocator(root.root, strategy, text, tier, tierRoles, hinted);
    if (!tierLoc) continue;
    loc ??= tierLoc;
    tiers.push(tier);
  }
  if (!loc) return new Map();
  const read: Promise<boolean[][]> =
    strategy === "near"
      ? loc.evaluateAll(nearLabelMatches, [text, tiers.map((t) => [t !== "exact", t === "substring"])] as [string, Array<[boolean, boolean]>])
      : loc.evaluateAll(leadMatches, [text, tiers.map((t) => t !== "exact")] as [string, boolean[]]);
  const flags = deadline === Infinity ? await read : await within(read, Math.max(1, deadline - Date.now()));
  if (flags === TIMED_OUT) return TIMED_OUT;
  return new Map(tiers.map((t, i) => [t, flags[i]!]));
}

/** When {@link locateTarget} stops waiting for a target that is not there (besides its `waitMs`). */
export interface NotFoundRule {
  /**
   * The grammar's own rule: once the page's load is done, the network idle and the DOM unchanged
   * for this long, in ms. @default {@link QUIET_MS} (500)
   */
  quietMs?: number;
  /**
   * The hand-over rule, for a policy that hands a target the grammar does not find to the model:
   * the page settled by its events (`settleBeforeRead`: its requests done, then the DOM quiet for a
   * read's short while, waited for at most `settleCapMs`) and not changed since the look; no quiet
   * rule of its own. The not-found is then thrown at once as an {@link UnexplainedNotFound}: the
   * closest candidates are read only if its `explain` is called. Absent: the grammar's own rule.
   */
  handOver?: { settleCapMs: number };
}

/**
 * Finds the one element `target` names, waiting up to `waitMs` for it to appear (polling, not
 * busy-looping: 100 ms, 250 ms, then every 250 ms), and no longer than the page takes to be loaded
 * and stable: once its load is done, the network idle and the DOM unchanged for `rule.quietMs`, a
 * target still not there is not found. With `rule.handOver`, no longer than the page takes to settle
 * by its events (see {@link NotFoundRule}).
 *
 * A look tries every way to find the target, however short `waitMs` is (0 looks once): only on a
 * page so large that one look takes seconds is a look cut short, when `stepLeftMs` (the step's time
 * left) is given and less than {@link NOT_FOUND_MARGIN_MS} of it would remain, so the step still
 * ends with a not-found that says so rather than at its deadline.
 *
 * @param rule - when a target not there is not found. @default the grammar's own rule
 * @param stepLeftMs - the step's time left, in ms. @default unbounded (a look is never cut short)
 * @throws {@link InterpreterError} `WF_ELEMENT_NOT_FOUND` with the closest candidates (with
 *   `rule.handOver`: an {@link UnexplainedNotFound}, unless only hidden elements match), or
 *   `WF_ELEMENT_AMBIGUOUS` with the equally good matches.
 */
export async function locateTarget(
  page: Page,
  target: TargetSpec,
  purpose: TargetPurpose,
  waitMs: number,
  signal?: AbortSignal,
  rule: NotFoundRule = {},
  stepLeftMs?: number,
): Promise<FoundElement> {
  const started = Date.now();
  const deadline = started + Math.max(0, waitMs);
  // Looks are cut short only where the step's own time runs out, never by the find's wait.
  const lookUntil = stepLeftMs === undefined ? Infinity : Math.max(deadline, started + stepLeftMs - NOT_FOUND_MARGIN_MS);
  const pauses = [100, 250];
  let last: Missed = {};
  const network = watchRequests(page);
  const { handOver } = rule;
  // The hand-over rule: the page as it was when looked at (a look on a page that has not changed since it settled stands).
  let looked = handOver ? await domStamp(page) : undefined;
  let changedDuringLook = false;
  // The DOM as the hand-over's last settle found it quiet: the model's page view need not wait for it again.
  let settled: QuietMark | undefined;
  for (;;) {
    let result: FoundElement | Missed;
    try {
      result = await tryOnce(page, target, purpose, lookUntil, (looked?.elements ?? Infinity) <= PROBE_MAX_ELEMENTS);
    } catch (error) {
      // The page navigated while we looked (a click before this step started a load): look again.
      if (!isNavigationRace(error)) throw error;
      result = {};
    }
    if ("locator" in result) return result;
    last = result;
    const left = deadline - Date.now();
    if (left <= 0 || signal?.aborted) break;
    if (looked) {
      // Once the page has settled by its events (requests done, the DOM quiet for a read's short
      // while), a target the look did not find on it is not there: no quiet rule of our own. A page
      // that changed since the look began is looked at again: after the settle waited for it (a
      // request's answer, a re-render), and once (not twice in a row) when it changed during the look
      // and was quiet again by the settle, as a page that changes more often than a look takes (a
      // busy machine) would otherwise be looked at until the find's time is up.
      const settle = await settleBeforeRead(page, handOver!.settleCapMs, { withinMs: left });
      // The stamp its last look at the DOM read (no evaluation of its own).
      const now = settle.stamp;
      settled = settle.quiet;
      const changed = now.id !== looked.id || now.changes !== looked.changes;
      looked = now;
      if (!changed || (!settle.waited && changedDuringLook)) break;
      changedDuringLook = !settle.waited;
      continue;
    }
    // A loaded page that has stopped changing will not show the target by waiting longer.
    if (await isSettled(page, rule.quietMs ?? QUIET_MS, network.inflight())) break;
    await page.waitForTimeout(Math.min(left, pauses.shift() ?? 250));
  }
  if (last.hidden) {
    // File inputs are often hidden behind a styled label; setting files on them works.
    if (purpose === "upload") {
      const picked = pick(last.hidden.locator, last.hidden.infos, target, true, undefined, last.hidden.root);
      if (picked) {
        if (last.hidden.root.frames.length) picked.normalized = await picked.locator.normalize().then((l) => l.toString(), () => undefined);
        return picked;
      }
    }
    const hidden = last.hidden.infos.filter((i) => i.sameAs === -1 && i.inside === -1).map((i) => ({ role: i.role, name: i.name }));
    throw new InterpreterError(
      "WF_ELEMENT_NOT_FOUND",
      `no visible element matches ${targetLabel(target)}; only hidden ones do: ${hidden.slice(0, 5).map((c) => `${JSON.stringify(c.name)} (${c.role})`).join(", ")}. ` +
        `Do first what shows it (open the menu, expand the section), or wait for it (\`wait for "…"\`).`,
      { target: target.text, candidates: hidden },
    );
  }
  if (handOver) {
    throw new UnexplainedNotFound(`no element matches ${targetLabel(target)}.`, { target: target.text }, (timeLeftMs) => notFound(page, target, last, timeLeftMs), settled);
  }
  throw await notFound(page, target, last, stepLeftMs === undefined ? undefined : stepLeftMs - (Date.now() - started));
}

/**
 * The not-found of a target no look found visible: what the page has instead (the frames or the
 * place a scope names that it lacks, the closest candidates, closed shadow roots), read within
 * `stepLeftMs` (the step's time left, in ms; unbounded when undefined).
 */
async function notFound(page: Page, target: TargetSpec, last: Missed, stepLeftMs?: number): Promise<InterpreterError> {
  const started = Date.now();
  // A place the page does not have is the thing to name: `in the "Payment" frame`, `in the "Shipping" section`.
  const frameScopes = target.scopes?.filter((sc) => sc.kind === "frame") ?? [];
  const roots = await searchRoots(page, frameScopes).catch(() => [] as SearchRoot[]);
  if (frameScopes.length && !roots.length) {
    const all = await childRoots(page).catch(() => [] as SearchRoot[]);
    const labels = [...new Set(all.map((r) => r.frames[0]!.label).filter(Boolean))].map((l) => JSON.stringify(l));
    const wanted = scopePhrase(frameScopes).replace(/^in /, "");
    return new InterpreterError(
      "WF_ELEMENT_NOT_FOUND",
      `no element matches ${targetLabel(target)}: the page has no ${wanted.replace(/^the /, "")}. ` +
        (all.length ? `Its frames: ${labels.length ? labels.join(", ") : "none with a title, name, aria-label or id"}` : "It shows no frames") +
        `. Name a frame by its title, name, aria-label or id (\`in the "…" frame\`), or leave the frame out.`,
      { target: target.text, candidates: [] },
    );
  }
  for (const scope of target.scopes?.filter((sc) => sc.kind !== "frame") ?? []) {
    let any = false;
    for (const root of roots) {
      any = await root.root
        .locator("body *")
        .evaluateAll(inScopes, [scope])
        .then((flags) => flags.some(Boolean))
        .catch(() => true);
      if (any) break;
    }
    if (!any) {
      return new InterpreterError(
        "WF_ELEMENT_NOT_FOUND",
        `no element matches ${targetLabel(target)}: the page has no ${scope.text ? `${JSON.stringify(scope.text)} ` : ""}${scope.kind}` +
          `${scope.kind === "section" ? " (no heading or labelled region of that name)" : ""}. Check the name as the page writes it, or leave the place out.`,
        { target: target.text, candidates: [] },
      );
    }
  }
  const searchStarted = Date.now();
  // Within the step's time: what is left of it but the closed-root look's, at most the budget.
  const candidateBudgetMs = stepLeftMs === undefined ? CANDIDATE_BUDGET_MS : Math.min(CANDIDATE_BUDGET_MS, Math.max(500, started + stepLeftMs - Date.now() - CLOSED_LOOK_MS));
  const search = await closestCandidates(page, target.text, 5, roots.length ? roots : [{ root: page, frames: [] }], candidateBudgetMs);
  const candidates = search.candidates;
  const anyClose = candidates.some((c) => similarity(target.text, c.name) >= MIN_SIMILARITY);
  const listed = candidates.map((c) => `${JSON.stringify(c.name)} (${c.role}${c.frame ? `, in ${c.frame}` : ""})`).join(", ");
  // Only a search that read the whole page may say it has nothing.
  const closest = !candidates.length
    ? search.complete
      ? " The page shows no interactive elements."
      : ""
    : anyClose
      ? ` Closest: ${listed}.`
      : ` Nothing on the page comes close; it shows ${listed}, among others.`;
  const large =
    (last.stoppedEarly ? ` The page is very large: the look for the element stopped before trying every way to find it, to leave the step time to say so.` : "") +
    (search.complete ? "" : ` The page is too large to list what it shows within ${Date.now() - searchStarted} ms${candidates.length ? ": those named are some of its elements" : ""}.`) +
    (last.stoppedEarly || !search.complete ? " Name the element more exactly, or give the step more time." : "");
  const closedLook = await within(page.evaluate(closedComponents).catch(() => [] as string[]), CLOSED_LOOK_MS);
  const closed = closedLook === TIMED_OUT ? [] : closedLook;
  const hidden = closed.length
    ? ` The page shows components whose content no one can reach (closed shadow roots): ${closed.map((t) => `<${t}>`).join(", ")}; an element inside them cannot be found by any interpreter.`
    : "";
  return new InterpreterError(
    "WF_ELEMENT_NOT_FOUND",
    `no element matches ${targetLabel(target)}.${closest}${large}${hidden} Check the spelling, name the role (\`the "Save" button\`), or wait for the page to show it first.`,
    { target: target.text, candidates, ...(last.stoppedEarly || !search.complete ? { searchComplete: false } : {}) },
  );
}
