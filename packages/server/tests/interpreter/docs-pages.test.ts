/**
 * The interpreter on the pages the examples use: the PostgreSQL docs Debian ships
 * (`/usr/share/doc/postgresql-doc-15/html/`), and fixtures of the same shapes so the rules hold
 * where those docs are not installed (issue 3 follow-up: items 1–7).
 */
import { existsSync } from "node:fs";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import type { Page } from "playwright-core";
import { decodeAnswer, toResponseFormat } from "@wf/core";
import { normalizeStepSchema } from "@wf/core/protocol";
import { createDeterministicInterpreter, InterpreterError } from "../../src/interpreter/index.js";
import type { StaticServer } from "../helpers/static-server.js";
import { FIXTURES, rejection, step, usePages } from "./_setup.js";

const PG_DOCS = "/usr/share/doc/postgresql-doc-15/html/";

let server: StaticServer;
let page: Page;
/** What `wf run`'s embedded server uses: local files allowed. */
const local = createDeterministicInterpreter({ allowFileUrls: true, findTimeoutMs: 1_000 });
/** The default: local files refused. */
const strict = createDeterministicInterpreter({ findTimeoutMs: 1_000 });

async function ask<S extends z.ZodType>(question: string, schema: S): Promise<z.infer<S>> {
  const normalized = normalizeStepSchema(toResponseFormat(schema, "answer") as unknown as Record<string, unknown>);
  const raw = await local.ask({ page, question, schema: normalized, timeoutMs: 10_000, signal: new AbortController().signal, secrets: [], report: {} });
  return decodeAnswer(schema, raw) as z.infer<S>;
}

async function askText(question: string): Promise<unknown> {
  return local.ask({ page, question, timeoutMs: 10_000, signal: new AbortController().signal, secrets: [], report: {} });
}


/** `it` on a page of the installed PostgreSQL docs, skipped with a message saying why when the file is absent. */
function pgIt(file: string, title: string, fn: (url: string) => Promise<void>) {
  const path = `${PG_DOCS}${file}`;
  if (existsSync(path)) it(`${title} (${file})`, () => fn(pathToFileURL(path).href));
  else it.skip(`${title} (${file}) — SKIPPED: ${path} is absent (apt-get install postgresql-doc-15)`, () => undefined);
}

usePages((test) => ({ server, page } = test));

describe("a table whose labels are the first column's cells (item 1) and a wrapped scalar named by the question (item 2)", () => {
  it("reads a row whose first cell matches the field, from the column the question names", async () => {
    await page.goto(`${server.url}/limits.html`);
    expect(await ask("the limits", z.object({ columnsPerTable: z.number() }))).toEqual({ columnsPerTable: 1600 });
    expect(await ask("the limits", z.object({ numberOfDatabases: z.number().int(), queryParameters: z.number().int() }))).toEqual({
      numberOfDatabases: 4294950911,
      queryParameters: 65535,
    });
    expect(await ask("the comment on each limit", z.object({ columnsPerTable: z.string() }))).toEqual({
      columnsPerTable: "further limited by tuple size fitting on a single page; see note below",
    });
    expect(await ask("What is the upper limit of columns per table?", z.number())).toBe(1600);
    expect(await askText("What is the upper limit of columns per table?")).toBe("1,600");
  });

  pgIt("limits.html", "reads the limits of the real page", async (url) => {
    await local.act(step(page, `go to "${url}"`));
    expect(await ask("the limits", z.object({ columnsPerTable: z.number() }))).toEqual({ columnsPerTable: 1600 });
    expect(await ask("What is the upper limit of columns per table?", z.number())).toBe(1600);
  });
});

describe("a definition list as an array of objects (item 3)", () => {
  it("reads each <dt> with its <dd>s, fields matched loosely", async () => {
    await page.goto(`${server.url}/glossary.html`);
    const glossary = await ask("the glossary", z.array(z.object({ term: z.string(), definition: z.string() })));
    expect(glossary).toEqual([
      { term: "ACID", definition: "Atomicity, Consistency, Isolation, and Durability. This set of properties guarantees validity." },
      { term: "Analytic function", definition: "See Window function." },
      { term: "Atomicity", definition: "The property of a transaction that either all its operations complete or none do. See Also ACID." },
      { term: "Window function (routine)", definition: "A function that computes over a window of rows." },
    ]);
    const named = await ask("the glossary", z.object({ entries: z.array(z.object({ name: z.string(), meaning: z.string() })) }));
    expect(named.entries.map((e) => e.name)).toEqual(["ACID", "Analytic function", "Atomicity", "Window function (routine)"]);
  });

  pgIt("glossary.html", "reads the real glossary", async (url) => {
    await local.act(step(page, `go to "${url}"`));
    const glossary = await ask("the glossary", z.array(z.object({ term: z.string(), definition: z.string() })));
    expect(glossary.length).toBeGreaterThan(100);
    expect(glossary[0]!.term).toBe("ACID");
    expect(glossary[0]!.definition).toMatch(/^Atomicity, Consistency, Isolation, and Durability\. This set of properties/);
    expect(glossary.every((g) => g.term && g.definition && !/\s{2}|\u00a0/.test(g.term + g.definition))).toBe(true);
  });
});

describe("numbers only from text that is a number (item 4)", () => {
  const sizes = z.object({ relationSize: z.number().nullable(), fieldSize: z.number().nullable(), rowsPerTable: z.number().nullable(), databaseSize: z.number().nullable() });

  it("gives null for a nullable number whose cell has a unit or prose, and fails naming a required one", async () => {
    await page.goto(`${server.url}/limits.html`);
    expect(await ask("the limits", sizes)).toEqual({ relationSize: null, fieldSize: null, rowsPerTable: null, databaseSize: null });
    const error = await rejection(ask("the limits", z.object({ relationSize: z.number(), rowsPerTable: z.number(), columnsPerIndex: z.number() })));
    expect(error.code).toBe("WF_ANSWER_NOT_FOUND");
    expect(error.details.fields).toEqual(["relationSize", "rowsPerTable"]);
    // As text the cell is returned whole.
    expect(await ask("the limits", z.object({ relationSize: z.string(), fieldSize: z.string() }))).toEqual({ relationSize: "32 TB", fieldSize: "1 GB" });
  });

  pgIt("limits.html", "does not pick numbers out of the real page's prose", async (url) => {
    await local.act(step(page, `go to "${url}"`));
    expect(await ask("the limits", sizes)).toEqual({ relationSize: null, fieldSize: null, rowsPerTable: null, databaseSize: null });
  });
});

describe("whitespace-normalised texts (item 5)", () => {
  it("returns the title and headings without NBSPs or runs of spaces", async () => {
    await page.goto(`${server.url}/limits.html`);
    expect(await askText("the title of the page")).toBe("Appendix K. Product Limits");
    expect(await ask("the page", z.object({ title: z.string(), heading: z.string() }))).toEqual({
      title: "Appendix K. Product Limits",
      heading: "Appendix K. Product Limits",
    });
  });

  pgIt("limits.html", "returns the real page's title normalised", async (url) => {
    await local.act(step(page, `go to "${url}"`));
    expect(await askText("the title of the page")).toBe("Appendix K. PostgreSQL Limits");
    expect(await ask("the title of the page", z.string())).toBe("Appendix K. PostgreSQL Limits");
  });
});

describe("scroll to prefers a heading, and an element over a link to the same page's anchor (item 6)", () => {
  const inView = (selector: string) =>
    page.evaluate((sel) => {
      const r = document.querySelector(sel)!.getBoundingClientRect();
      return r.top >= 0 && r.bottom <= window.innerHeight;
    }, selector);

  it("scrolls to the heading, not its table-of-contents link, and to the button, not a link to it", async () => {
    await page.goto(`${server.url}/toc.html`);
    const result = await local.act(step(page, 'scroll to "8.1.4. Serial Types"'));
    expect(result.target).toBe('heading "8.1.4. Serial Types"');
    expect(await inView("#DATATYPE-SERIAL")).toBe(true);
    expect((await local.act(step(page, 'scroll to "Subscribe"'))).target).toBe('button "Subscribe"');
    expect(await inView("#subscribe")).toBe(true);
    // A click is not a scroll: the same words stay ambiguous there.
    expect((await rejection(local.act(step(page, 'click "Subscribe"')))).code).toBe("WF_ELEMENT_AMBIGUOUS");
  });

  pgIt("datatype-numeric.html", "scrolls to a section heading of the real page", async (url) => {
    await local.act(step(page, `go to "${url}"`));
    const result = await local.act(step(page, 'scroll to "8.1.4. Serial Types"'));
    expect(result.target).toBe('heading "8.1.4. Serial Types"');
  });
});

describe("local files are refused unless allowed (item 7)", () => {
  const fileUrl = (name: string) => pathToFileURL(`${FIXTURES}${name}`).href;

  it("refuses go to file: and other schemes, with how to allow local files", async () => {
    await page.goto(`${server.url}/nav-a.html`);
    const refused = await rejection(strict.act(step(page, `go to "${fileUrl("nav-b.html")}"`)));
    expect(refused.code).toBe("WF_NAVIGATION_REFUSED");
    expect(refused.details.url).toBe(fileUrl("nav-b.html"));
    expect(refused.message).toContain("allowFileUrls");
    expect(refused.message).toContain("wf serve --allow-file-urls");
    expect(refused.message).toContain("WF_ALLOW_FILE_URLS=1");
    expect(page.url()).toBe(`${server.url}/nav-a.html`);
    expect((await rejection(strict.act(step(page, 'go to "javascript:alert(1)"')))).code).toBe("WF_NAVIGATION_REFUSED");
    expect((await rejection(local.act(step(page, 'go to "chrome://version"')))).code).toBe("WF_NAVIGATION_REFUSED");
    await strict.act(step(page, 'go to "about:blank"'));
    await strict.act(step(page, 'go to "data:text/html,<h1>Inline</h1>"'));
    expect(await page.locator("h1").textContent()).toBe("Inline");
    await strict.act(step(page, `go to "${server.url}/nav-b.html"`));
    expect(page.url()).toBe(`${server.url}/nav-b.html`);
  });

  it("opens local files when allowed, and refuses a link, a relative URL or a script that leads to one when not", async () => {
    await local.act(step(page, `go to "${fileUrl("file-links.html")}"`));
    expect(page.url()).toBe(fileUrl("file-links.html"));

    const link = await rejection(strict.act(step(page, 'click "Local link"')));
    expect(link.code).toBe("WF_NAVIGATION_REFUSED");
    expect(link.details.url).toBe(fileUrl("nav-b.html"));
    expect(page.url()).toBe(fileUrl("file-links.html"));

    expect((await rejection(strict.act(step(page, 'go to "./nav-b.html"')))).code).toBe("WF_NAVIGATION_REFUSED");

    // Not a link: the check after the action catches it and goes back.
    const scripted = await rejection(strict.act(step(page, 'click "Scripted"')));
    expect(scripted.code).toBe("WF_NAVIGATION_REFUSED");
    expect(scripted.details.url).toBe(fileUrl("nav-b.html"));
    expect(page.url()).toBe(fileUrl("file-links.html"));

    await local.act(step(page, 'click "Local link"'));
    expect(page.url()).toBe(fileUrl("nav-b.html"));
  });
});
