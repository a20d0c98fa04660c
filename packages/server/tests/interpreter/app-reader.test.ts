/**
 * The grammar's reader on application UIs (issue 32): Material UI's markup as rendered, read into
 * the schema's shape without a model (card grids, a side panel of icon- and sibling-labelled
 * values, the active tab panel and an open dialog as scopes, a Markdown section's code block,
 * alerts, chips beside a name), and refused where the question needs more than the page labels.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import type { Browser, Page } from "playwright-core";
import { decodeAnswer, toResponseFormat } from "@wf/core";
import { normalizeStepSchema } from "@wf/core/protocol";
import { createDeterministicInterpreter } from "../../src/interpreter/index.js";
import type { StaticServer } from "../helpers/static-server.js";
import { launchBrowser, rejection, serveFixtures } from "./_setup.js";

let browser: Browser;
let server: StaticServer;
let page: Page;
const interpreter = createDeterministicInterpreter();

async function ask(question: string, schema?: z.ZodType): Promise<unknown> {
  const base = { page, question, timeoutMs: 10_000, signal: new AbortController().signal, secrets: [], report: {} };
  if (!schema) return interpreter.ask(base);
  const normalized = normalizeStepSchema(toResponseFormat(schema, "answer") as unknown as Record<string, unknown>);
  return decodeAnswer(schema, await interpreter.ask({ ...base, schema: normalized }));
}
async function refused(question: string, schema?: z.ZodType) {
  const error = await rejection(ask(question, schema));
  expect(["WF_ANSWER_UNCERTAIN", "WF_ANSWER_NOT_FOUND"], error.message).toContain(error.code);
  return error;
}

beforeAll(async () => {
  browser = await launchBrowser();
  server = await serveFixtures();
  page = await (await browser.newContext()).newPage();
});
afterAll(async () => {
  await browser?.close();
  await server?.close();
});

describe("a card grid of packages (MUI cards, no ARIA)", () => {
  beforeAll(async () => {
    await page.goto(`${server.url}/mui-search.html`);
  });
  const Pkg = z.object({ name: z.string(), version: z.string(), description: z.string(), license: z.string() });

  it("reads each card's name, version, description and licence by their place in the card", async () => {
    expect(await ask("the packages: name, version, description and license", z.array(Pkg))).toEqual([
      { name: "react-query", version: "v5.0.1", description: "Hooks for fetching, caching and updating asynchronous data in React", license: "MIT" },
      { name: "react-router", version: "v6.20.0", description: "Declarative routing for React", license: "MIT" },
      { name: "react-dom", version: "v18.2.0", description: "React package for working with the DOM.", license: "Apache-2.0" },
    ]);
  });

  it("refuses a field no card shows, and a filter it cannot apply", async () => {
    await refused("the packages", z.array(z.object({ name: z.string(), downloads: z.number() })));
    await refused("the packages whose license is MIT", z.array(Pkg));
  });

  it("reads the alert's message, as text and as a string", async () => {
    const message = "Could not load download counts: the statistics service did not answer";
    expect(await ask("the error message")).toBe(message);
    expect(await ask("What does the error message say?", z.string())).toBe(message);
    expect(await ask("the alert")).toBe(message);
  });

  it("refuses a success message when the one alert is an error", async () => {
    await refused("the success message");
  });
});

describe("a package page: side panel, Markdown, tab panels", () => {
  beforeAll(async () => {
    await page.goto(`${server.url}/mui-package.html`);
  });

  it("reads the side panel's values labelled by an icon, a sibling, a primary/secondary pair", async () => {
    const Details = z.object({
      latestVersion: z.string(),
      license: z.string(),
      unpackedSize: z.string(),
      repository: z.string(),
      weeklyDownloads: z.number(),
      published: z.string(),
    });
    expect(await ask("the package details", Details)).toEqual({
      latestVersion: "5.0.1",
      license: "MIT",
      unpackedSize: "1.2 MB",
      repository: "github.com/TanStack/query",
      weeklyDownloads: 1482113,
      published: "3 days ago",
    });
    expect(await ask("the weekly downloads")).toBe("1,482,113");
  });

  it("returns the code block under a Markdown heading", async () => {
    expect(await ask("the usage code")).toBe(
      "import { useQuery } from 'react-query'\n\nconst { data } = useQuery({ queryKey: ['todos'], queryFn: fetchTodos })",
    );
    expect(await ask("the installation command", z.string())).toBe("npm i react-query");
    expect(await ask('the "Usage" section')).toContain("Wrap your app in a provider, then query:");
  });

  it("refuses code under a heading the page does not have", async () => {
    await refused("the configuration code");
  });

  it("reads the dependencies table inside the active tab panel, by the tab's name", async () => {
    await page.getByRole("tab", { name: "Dependencies" }).click();
    const Dep = z.object({ package: z.string(), versionRange: z.string() });
    const deps = [
      { package: "@tanstack/query-core", versionRange: "^5.0.0" },
      { package: "use-sync-external-store", versionRange: "^1.2.0" },
    ];
    expect(await ask("the dependencies in the Dependencies tab", z.array(Dep))).toEqual(deps);
    expect(await ask("the dependencies", z.array(Dep))).toEqual(deps);
    expect(await ask("the peer dependencies", z.array(Dep))).toEqual([{ package: "react", versionRange: "^18 || ^19" }]);
  });

  it("reads a list of versions with the chips beside each", async () => {
    await page.getByRole("tab", { name: "Versions" }).click();
    const Version = z.object({ version: z.string(), tags: z.array(z.string()) });
    expect(await ask("the versions with their tags", z.array(Version))).toEqual([
      { version: "5.0.1", tags: ["latest"] },
      { version: "5.1.0-beta.2", tags: ["beta", "next"] },
      { version: "5.0.0", tags: [] },
      { version: "4.36.1", tags: [] },
    ]);
  });

  it("does not read a hidden tab panel", async () => {
    await page.getByRole("tab", { name: "Versions" }).click();
    await refused("the dependencies in the Dependencies tab", z.array(z.object({ package: z.string(), versionRange: z.string() })));
  });
});

describe("a side panel of label/value pairs with no dl and no colon (flex rows, overline captions, a Grid)", () => {
  beforeAll(async () => {
    await page.goto(`${server.url}/mui-details.html`);
  });

  it("reads flex rows of sibling elements, nested wrappers, overline captions above a value and an alternating grid", async () => {
    const Details = z.object({
      version: z.string(),
      license: z.string(),
      unpackedSize: z.string(),
      repository: z.string(),
      homepage: z.string(),
      weeklyDownloads: z.number(),
      openIssues: z.number(),
      lastPublish: z.string(),
      totalFiles: z.number(),
      nodeEngines: z.string(),
    });
    expect(await ask("the package details", Details)).toEqual({
      version: "5.0.1",
      license: "MIT",
      unpackedSize: "1.2 MB",
      repository: "github.com/TanStack/query",
      homepage: "tanstack.com/query",
      weeklyDownloads: 1482113,
      openIssues: 87,
      lastPublish: "3 days ago",
      totalFiles: 112,
      nodeEngines: ">=18",
    });
    expect(await ask("the homepage")).toBe("tanstack.com/query");
    expect(await ask("the unpacked size")).toBe("1.2 MB");
    expect(await ask("the weekly downloads", z.number())).toBe(1482113);
    expect(await ask("the open issues", z.number())).toBe(87);
  });

  it("returns the command under an overline caption as a code block", async () => {
    expect(await ask("the install command")).toBe("npm i @tanstack/react-query");
  });

  it("refuses what no label on the panel names", async () => {
    await refused("the maintainer", z.object({ maintainer: z.string() }));
    await refused("the bundle size");
  });
});

describe("an open dialog as a scope of its own", () => {
  beforeAll(async () => {
    await page.goto(`${server.url}/mui-dialog.html`);
  });

  it("reads a field inside the dialog, not the one of the same label behind it", async () => {
    expect(await ask("the email in the dialog", z.string())).toBe("ada@example.org");
    expect(await ask("the email in the dialog")).toBe("ada@example.org");
  });

  it("reads the dialog as a whole when the question names nothing in it", async () => {
    expect(await ask("the text in the dialog")).toContain("Your password expires in 3 days");
  });

  it("reads the dialog's alert", async () => {
    expect(await ask("the warning message")).toBe("Your password expires in 3 days");
  });
});
