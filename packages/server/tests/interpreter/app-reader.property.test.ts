/**
 * Property: on random application markup (MUI cards or list items whose parts vary from card to
 * card, chips, alerts of random severities, tab panels shown and hidden, a side panel of label/value
 * pairs written as flex rows, nested wrappers, overline captions or an alternating Grid, with values
 * missing), the grammar's reader gives the exact answer or refuses; never a wrong one (issue 32).
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
  versionStyle: "caption" | "labelled" | "nested" | "overline";
  licenseStyle: "chip" | "labelled" | "overline";
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
      versionStyle: fc.constantFrom("caption" as const, "labelled" as const, "nested" as const, "overline" as const),
      licenseStyle: fc.constantFrom("chip" as const, "labelled" as const, "overline" as const),
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
      : app.versionStyle === "nested"
        ? // A flex row of Box wrappers: the label beside an icon, the value two wrappers deep.
          `<div class="MuiBox-root css-1ebnygn"><div class="MuiBox-root css-1rr4qq7"><svg class="MuiSvgIcon-root MuiSvgIcon-fontSizeSmall" aria-hidden="true" viewBox="0 0 24 24" data-testid="LocalOfferIcon"><path d="M21 11z"></path></svg><span class="MuiTypography-root MuiTypography-body2 css-1ndsiev">Version</span></div><div class="MuiBox-root css-0"><div class="MuiBox-root css-k008qs"><span class="MuiTypography-root MuiTypography-body2 css-68o8xu">${p.version}</span></div></div></div>`
        : app.versionStyle === "overline"
          ? `<span class="MuiTypography-root MuiTypography-overline css-1m8ssc5">Version</span><p class="MuiTypography-root MuiTypography-body1 css-9l3uo3">${p.version}</p>`
          : `<div class="css-1d3bbye"><span class="MuiTypography-root MuiTypography-overline css-1m8ssc5">Version</span><span class="MuiTypography-root MuiTypography-body2 css-68o8xu">${p.version}</span></div>`;
  const license = !p.license
    ? ""
    : app.licenseStyle === "chip"
      ? `<div class="MuiChip-root MuiChip-outlined MuiChip-sizeSmall css-1jzq0dw"><svg class="MuiSvgIcon-root MuiChip-icon" aria-hidden="true" viewBox="0 0 24 24" data-testid="GavelIcon"><path d="M1 21h12v2H1z"></path></svg><span class="MuiChip-label MuiChip-labelSmall">${p.license}</span></div>`
      : app.licenseStyle === "overline"
        ? `<div class="MuiBox-root css-0"><span class="MuiTypography-root MuiTypography-overline css-1m8ssc5">License</span></div><div class="MuiBox-root css-0"><p class="MuiTypography-root MuiTypography-body2 css-68o8xu">${p.license}</p></div>`
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

/** The side panel's fields: what the schema calls each, the label the page writes, the values it may show. */
const PANEL_FIELDS = [
  { field: "version", label: "Version", values: ["5.0.1", "1.2.0-rc.1", "0.9.3"] },
  { field: "license", label: "License", values: LICENSES },
  { field: "unpackedSize", label: "Unpacked size", values: ["1.2 MB", "88.4 kB"] },
  { field: "repository", label: "Repository", values: ["github.com/acme/kit", "gitlab.com/tools/grid"] },
  { field: "homepage", label: "Homepage", values: ["acme.dev", "grid.example.org"] },
  { field: "lastPublish", label: "Last publish", values: ["3 days ago", "a month ago"] },
  { field: "weeklyDownloads", label: "Weekly downloads", values: ["1,482,113", "87"] },
] as const;
const PANEL_STYLES = ["stack", "nested", "overline", "overline-boxed", "grid"] as const;
/** A field as shown: its value beside its label, its label with an empty value, or neither. */
type PanelField = { field: string; label: string; value: string; style: (typeof PANEL_STYLES)[number]; state: "present" | "empty" | "absent" };
type Panel = { fields: PanelField[] };
const arbPanel: fc.Arbitrary<Panel> = fc
  .tuple(
    ...PANEL_FIELDS.map((d) =>
      fc.record({
        field: fc.constant(d.field as string),
        label: fc.constant(d.label as string),
        value: fc.constantFrom(...d.values),
        style: fc.constantFrom(...PANEL_STYLES),
        state: fc.constantFrom("present" as const, "present" as const, "empty" as const, "absent" as const),
      }),
    ),
  )
  .chain((fields) => fc.shuffledSubarray(fields, { minLength: fields.length, maxLength: fields.length }))
  .map((fields) => ({ fields }));
const PanelNullable = z.object(Object.fromEntries(PANEL_FIELDS.map((d) => [d.field, z.string().nullable()])));
const PanelRequired = z.object(Object.fromEntries(PANEL_FIELDS.map((d) => [d.field, z.string()])));

/** One field in its layout, as MUI renders it (an empty value renders its element with no text). */
function panelFieldHtml(f: PanelField): string {
  const value = f.state === "present" ? f.value : "";
  switch (f.style) {
    case "stack":
      return `<div class="MuiStack-root css-1xhj18k"><p class="MuiTypography-root MuiTypography-body2 css-1u6oqs7">${f.label}</p><p class="MuiTypography-root MuiTypography-body2 css-17i2ab8">${value}</p></div><hr class="MuiDivider-root MuiDivider-fullWidth css-39bbo6">`;
    case "nested":
      return `<div class="MuiBox-root css-1ebnygn"><div class="MuiBox-root css-1rr4qq7"><svg class="MuiSvgIcon-root MuiSvgIcon-fontSizeSmall" aria-hidden="true" viewBox="0 0 24 24" data-testid="InfoOutlinedIcon"><path d="M11 7h2v2h-2z"></path></svg><span class="MuiTypography-root MuiTypography-body2 css-1ndsiev">${f.label}</span></div><div class="MuiBox-root css-0"><div class="MuiBox-root css-k008qs"><span class="MuiTypography-root MuiTypography-body2 css-68o8xu">${value}</span></div></div></div>`;
    case "overline":
      return `<span class="MuiTypography-root MuiTypography-overline css-1m8ssc5">${f.label}</span><p class="MuiTypography-root MuiTypography-body1 css-9l3uo3">${value}</p>`;
    case "overline-boxed":
      return `<div class="MuiGrid-root MuiGrid-item MuiGrid-grid-xs-6 css-1s50f5r"><div class="MuiBox-root css-0"><span class="MuiTypography-root MuiTypography-overline css-1m8ssc5">${f.label}</span></div><div class="MuiBox-root css-0"><h6 class="MuiTypography-root MuiTypography-h6 css-1anx036">${value}</h6></div></div>`;
    case "grid":
      return `<div class="MuiGrid-root MuiGrid-item MuiGrid-grid-xs-5 css-1xkw0x0"><p class="MuiTypography-root MuiTypography-body2 css-1u6oqs7">${f.label}</p></div><div class="MuiGrid-root MuiGrid-item MuiGrid-grid-xs-7 css-5vb4lz"><p class="MuiTypography-root MuiTypography-body2 css-17i2ab8">${value}</p></div>`;
  }
}
/** The panel: runs of fields of one layout kept together (a Grid holds its cells, overline-boxed items sit in a Grid container). */
function panelHtml(panel: Panel): string {
  const shown = panel.fields.filter((f) => f.state !== "absent");
  const runs: PanelField[][] = [];
  for (const f of shown) {
    const last = runs.at(-1);
    if (last && last[0]!.style === f.style) last.push(f);
    else runs.push([f]);
  }
  const body = runs
    .map((run) => {
      const inner = run.map(panelFieldHtml).join("");
      if (run[0]!.style === "grid") return `<div class="MuiGrid-root MuiGrid-container css-1d3bbye">${inner}</div><hr class="MuiDivider-root css-39bbo6">`;
      if (run[0]!.style === "overline-boxed") return `<div class="MuiGrid-root MuiGrid-container MuiGrid-spacing-xs-2 css-isbt42">${inner}</div>`;
      return inner;
    })
    .join("");
  return `<style>.MuiTypography-overline{display:block;text-transform:uppercase}.css-1xhj18k,.css-1ebnygn,.css-1rr4qq7,.MuiGrid-container{display:flex}</style>
<div id="root"><header class="MuiAppBar-root"><div class="MuiToolbar-root"><div class="MuiTypography-root MuiTypography-h6">Registry</div><button class="MuiButtonBase-root MuiButton-root">Login</button></div></header>
<div class="layout"><div class="content"><h4 class="MuiTypography-root MuiTypography-h4">kit</h4><p class="MuiTypography-root MuiTypography-body1">A toolkit for building forms.</p>
<div class="MuiBox-root css-1ebnygn"><div class="MuiBox-root css-1rr4qq7"><div class="MuiAvatar-root">TL</div><div class="MuiBox-root css-0"><span class="MuiTypography-root MuiTypography-body2">tannerlinsley</span></div></div><div class="MuiBox-root css-0"><span class="MuiTypography-root MuiTypography-caption">3 days ago</span></div></div></div>
<aside class="side"><div class="MuiPaper-root MuiCard-root"><div class="MuiCardContent-root css-1qw96cp">${body}</div></div></aside></div></div>`;
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
  it("a side panel of label/value pairs in MUI's layouts, values missing: every shown value exactly, or a refusal", async () => {
    await fc.assert(
      fc.asyncProperty(arbPanel, fc.boolean(), async (panel, nullable) => {
        await page.setContent(panelHtml(panel));
        const shownValue = (f: PanelField) => (f.state === "present" ? f.value : undefined);
        if (nullable) {
          const answer = await answerOrRefusal("the package details", PanelNullable);
          if (answer === REFUSED) return;
          // A value is the one shown beside its label; null only where the page shows none.
          expect(answer, `answered ${JSON.stringify(answer)} for ${JSON.stringify(panel)}`).toEqual(
            Object.fromEntries(PANEL_FIELDS.map((d) => [d.field, shownValue(panel.fields.find((f) => f.field === d.field)!) ?? null])),
          );
        } else {
          const answer = await answerOrRefusal("the package details", PanelRequired);
          if (answer === REFUSED) return;
          expect(panel.fields.every((f) => f.state === "present"), `answered ${JSON.stringify(answer)} for ${JSON.stringify(panel)}`).toBe(true);
          expect(answer).toEqual(Object.fromEntries(panel.fields.map((f) => [f.field, f.value])));
        }
      }),
      { numRuns: 60 },
    );
  }, 240_000);
});
