/**
 * Property: on random application markup (MUI cards or list items whose parts vary from card to
 * card, chips, alerts of random severities, tab panels shown and hidden), the grammar's reader gives
 * the exact answer or refuses; never a wrong one (issue 32).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import fc from "fast-check";
import type { Browser, Page } from "playwright-core";
import { decodeAnswer, toResponseFormat } from "@wf/core";
import { normalizeStepSchema } from "@wf/core/protocol";
import { createDeterministicInterpreter, isInterpreterError } from "../../src/interpreter/index.js";
import { launchBrowser } from "./_setup.js";

let browser: Browser;
let page: Page;
const interpreter = createDeterministicInterpreter();

async function ask(question: string, schema?: z.ZodType): Promise<unknown> {
  const base = { page, question, timeoutMs: 10_000, signal: new AbortController().signal, secrets: [], report: {} };
  if (!schema) return interpreter.ask(base);
  const normalized = normalizeStepSchema(toResponseFormat(schema, "answer") as unknown as Record<string, unknown>);
  return decodeAnswer(schema, await interpreter.ask({ ...base, schema: normalized }));
}

/** Asks, and returns the answer, or `REFUSED` for an honest refusal (any other error fails the test). */
const REFUSED = Symbol("refused");
async function answerOrRefusal(question: string, schema?: z.ZodType): Promise<unknown> {
  try {
    return await ask(question, schema);
  } catch (error) {
    if (!isInterpreterError(error)) throw error;
    expect(["WF_ANSWER_UNCERTAIN", "WF_ANSWER_NOT_FOUND"], `${question}: ${error.message}`).toContain(error.code);
    return REFUSED;
  }
}

beforeAll(async () => {
  browser = await launchBrowser();
  page = await (await browser.newContext()).newPage();
});
afterAll(async () => {
  await browser?.close();
});

const NAMES = ["alpha-lib", "beta-kit", "gamma-ui", "delta-db", "epsilon-cli", "zeta-http"];
const DESCRIPTIONS = ["Fast and small utilities", "A toolkit for building forms", "Reactive data grid components", "An embedded document store", "Command line helpers for scripts"];
const LICENSES = ["MIT", "ISC", "Apache-2.0", "BSD-3-Clause"];
const TAGS = ["latest", "beta", "next", "canary"];
const SEVERITIES = ["error", "warning", "info", "success", ""] as const;

type Pkg = { name: string; version?: string; description?: string; license?: string; tags: string[] };
type App = {
  layout: "cards" | "list";
  versionStyle: "caption" | "labelled";
  licenseStyle: "chip" | "labelled";
  items: Pkg[];
  alerts: Array<{ severity: (typeof SEVERITIES)[number]; text: string }>;
};

const arbVersion = fc.tuple(fc.nat(20), fc.nat(20), fc.nat(20), fc.boolean()).map(([a, b, c, pre]) => `${a}.${b}.${c}${pre ? "-beta.1" : ""}`);
const arbPkg = (name: string) =>
  fc.record({
    name: fc.constant(name),
    version: fc.option(arbVersion, { nil: undefined, freq: 10 }),
    description: fc.option(fc.constantFrom(...DESCRIPTIONS), { nil: undefined, freq: 10 }),
    license: fc.option(fc.constantFrom(...LICENSES), { nil: undefined, freq: 10 }),
    tags: fc.uniqueArray(fc.constantFrom(...TAGS), { maxLength: 2 }),
  });
const arbApp: fc.Arbitrary<App> = fc
  .shuffledSubarray(NAMES, { minLength: 1, maxLength: 5 })
  .chain((names) =>
    fc.record({
      layout: fc.constantFrom("cards" as const, "list" as const),
      versionStyle: fc.constantFrom("caption" as const, "labelled" as const),
      licenseStyle: fc.constantFrom("chip" as const, "labelled" as const),
      items: fc.tuple(...names.map(arbPkg)) as fc.Arbitrary<Pkg[]>,
      alerts: fc.array(
        fc.record({ severity: fc.constantFrom(...SEVERITIES), text: fc.constantFrom("Could not load the statistics", "Saved", "Your session expires soon", "Two packages are deprecated") }),
        { maxLength: 2 },
      ),
    }),
  );

const chip = (t: string) => `<div class="MuiChip-root MuiChip-filled MuiChip-sizeSmall css-1rtq0m3"><span class="MuiChip-label MuiChip-labelSmall css-1pjtbja">${t}</span></div>`;
function itemHtml(app: App, p: Pkg): string {
  const version = !p.version
    ? ""
    : app.versionStyle === "caption"
      ? `<span class="MuiTypography-root MuiTypography-caption css-2bxn45">v${p.version}</span>`
      : `<div class="css-1d3bbye"><span class="MuiTypography-root MuiTypography-overline css-1m8ssc5">Version</span><span class="MuiTypography-root MuiTypography-body2 css-68o8xu">${p.version}</span></div>`;
  const license = !p.license
    ? ""
    : app.licenseStyle === "chip"
      ? `<div class="MuiChip-root MuiChip-outlined MuiChip-sizeSmall css-1jzq0dw"><svg class="MuiSvgIcon-root MuiChip-icon" aria-hidden="true" viewBox="0 0 24 24" data-testid="GavelIcon"><path d="M1 21h12v2H1z"></path></svg><span class="MuiChip-label MuiChip-labelSmall">${p.license}</span></div>`
      : `<div class="css-1d3bbye"><span class="MuiTypography-root MuiTypography-overline css-1m8ssc5">License</span><span class="MuiTypography-root MuiTypography-body2 css-68o8xu">${p.license}</span></div>`;
  const description = p.description ? `<p class="MuiTypography-root MuiTypography-body2 css-e784if">${p.description}</p>` : "";
  const inner = `<div class="css-70qvj9"><a class="css-1xsto0d" href="/p/${p.name}"><h5 class="MuiTypography-root MuiTypography-h5 css-1g4yveo">${p.name}</h5></a>${version}</div>${description}<div class="css-1lekzkb">${license}${p.tags.map(chip).join("")}<span class="MuiTypography-root MuiTypography-caption css-2bxn45">Published 3 days ago</span></div>`;
  return app.layout === "cards"
    ? `<div class="MuiGrid-root MuiGrid-item MuiGrid-grid-xs-12 css-1twzmnh"><div class="MuiPaper-root MuiCard-root css-bhp9pd"><div class="MuiCardContent-root css-46bh2p">${inner}</div></div></div>`
    : `<li class="MuiListItem-root MuiListItem-gutters css-1fvy4uk"><div class="MuiListItemText-root css-1tsvksn">${inner}</div></li>`;
}
function html(app: App): string {
  const items = app.items.map((p) => itemHtml(app, p)).join("");
  const list = app.layout === "cards" ? `<div class="MuiGrid-root MuiGrid-container css-mhc70k">${items}</div>` : `<ul class="MuiList-root MuiList-padding css-1uzmcsd">${items}</ul>`;
  const alerts = app.alerts
    .map((a) => `<div class="MuiPaper-root MuiAlert-root${a.severity ? ` MuiAlert-color${a.severity[0]!.toUpperCase()}${a.severity.slice(1)}` : ""} css-1cdejgk" role="alert"><div class="MuiAlert-message css-1xsto0d">${a.text}</div></div>`)
    .join("");
  return `<div id="root"><header class="MuiAppBar-root"><div class="MuiTypography-root MuiTypography-h6">Registry</div></header><main><div class="MuiTypography-root MuiTypography-subtitle1">${app.items.length} packages</div>${list}</main>${alerts}</div>`;
}

const Pkg = z.object({ name: z.string(), version: z.string(), description: z.string(), license: z.string() });
const Versioned = z.object({ name: z.string(), version: z.string(), tags: z.array(z.string()) });

describe("property: random app markup, random questions", () => {
  it("cards and list items: every field of every item exactly, or a refusal", async () => {
    await fc.assert(
      fc.asyncProperty(arbApp, fc.constantFrom("records", "tags", "filter", "first-n", "unshown"), async (app, kind) => {
        await page.setContent(html(app));
        const shownVersion = (p: Pkg) => (app.versionStyle === "caption" ? `v${p.version}` : p.version);
        if (kind === "records") {
          const answer = await answerOrRefusal("the packages: name, version, description and license", z.array(Pkg));
          const complete = app.items.every((p) => p.version && p.description && p.license);
          if (answer === REFUSED) return;
          expect(complete, `answered ${JSON.stringify(answer)} for ${JSON.stringify(app.items)}`).toBe(true);
          expect(answer).toEqual(app.items.map((p) => ({ name: p.name, version: shownVersion(p), description: p.description, license: p.license })));
        } else if (kind === "tags") {
          const answer = await answerOrRefusal("the packages with their versions and tags", z.array(Versioned));
          if (answer === REFUSED) return;
          expect(app.items.every((p) => p.version), `answered ${JSON.stringify(answer)}`).toBe(true);
          // A chip is a chip: the licence's chip is among the tags the page shows beside the name.
          const chips = (p: Pkg) => [...(app.licenseStyle === "chip" && p.license ? [p.license] : []), ...p.tags];
          expect(answer).toEqual(app.items.map((p) => ({ name: p.name, version: shownVersion(p), tags: chips(p) })));
        } else {
          const question = kind === "filter" ? "the packages whose license is MIT" : kind === "first-n" ? "the first 2 packages" : "the packages";
          const schema = kind === "unshown" ? z.array(z.object({ name: z.string(), weeklyDownloads: z.number() })) : z.array(Pkg);
          const answer = await answerOrRefusal(question, schema);
          expect(answer, `${question} answered ${JSON.stringify(answer)}`).toBe(REFUSED);
        }
      }),
      { numRuns: 50 },
    );
  }, 240_000);

  it("alerts: the message of the severity asked for, or a refusal", async () => {
    await fc.assert(
      fc.asyncProperty(arbApp, fc.constantFrom("error", "warning", "success", ""), async (app, severity) => {
        await page.setContent(html(app));
        const question = severity ? `the ${severity} message` : "the alert";
        const answer = await answerOrRefusal(question);
        if (answer === REFUSED) return;
        const said = app.alerts.filter((a) => a.severity === severity);
        const fit = !severity ? app.alerts : said.length ? said : app.alerts.filter((a) => !a.severity);
        expect(fit.length, `${question} answered ${JSON.stringify(answer)} for ${JSON.stringify(app.alerts)}`).toBe(1);
        expect(answer).toBe(fit[0]!.text);
      }),
      { numRuns: 40 },
    );
  }, 240_000);

  it("tab panels: the shown panel's table when the question names its tab, else a refusal", async () => {
    const TABS = ["Dependencies", "Dev dependencies", "Versions"];
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...TABS), fc.constantFrom(...TABS), fc.boolean(), async (shown, asked, keepHidden) => {
        const rows = (tab: string) => [`${tab.toLowerCase().replace(/ /g, "-")}-a`, `${tab.toLowerCase().replace(/ /g, "-")}-b`];
        const panel = (tab: string, i: number) =>
          tab !== shown && !keepHidden
            ? `<div role="tabpanel" id="p${i}" aria-labelledby="t${i}" hidden></div>`
            : `<div role="tabpanel" id="p${i}" aria-labelledby="t${i}" ${tab === shown ? "" : "hidden"}><table class="MuiTable-root"><thead><tr><th>Package</th><th>Version range</th></tr></thead><tbody>${rows(tab).map((r) => `<tr><td>${r}</td><td>^1.0.0</td></tr>`).join("")}</tbody></table></div>`;
        await page.setContent(
          `<style>.MuiTab-root{text-transform:uppercase}</style><h4>pkg</h4><div role="tablist">${TABS.map((t, i) => `<button role="tab" class="MuiTab-root" id="t${i}" aria-controls="p${i}" aria-selected="${t === shown}">${t}</button>`).join("")}</div>${TABS.map(panel).join("")}`,
        );
        const answer = await answerOrRefusal(`the packages in the ${asked} tab`, z.array(z.object({ package: z.string(), versionRange: z.string() })));
        if (answer === REFUSED) return;
        // The "Dependencies" tab is not the "Dev dependencies" tab: only the tab asked for, shown, answers.
        expect(asked, `the ${asked} tab answered ${JSON.stringify(answer)} with ${shown} shown`).toBe(shown);
        expect(answer).toEqual(rows(shown).map((r) => ({ package: r, versionRange: "^1.0.0" })));
      }),
      { numRuns: 30 },
    );
  }, 240_000);
});
