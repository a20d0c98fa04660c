/**
 * The hand-over from the grammar to the model, in a real Chromium on a page that never settles
 * (its clock changes every 100 ms): the grammar does not wait out its find timeout before the model
 * sees the page. No timing is asserted: the grammar is given a find timeout longer than the step's
 * whole time, so a step that waited it out could not succeed at all.
 */
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { Browser, Page } from "playwright-core";
import type { StepReport, StepInterpreter } from "../../src/interpreter/index.js";
import { createDeterministicInterpreter, createGrammarThenModelInterpreter, createModelInterpreter, createModelProvider } from "./_direct.js";
import type { StaticServer } from "../helpers/static-server.js";
import { startDirectPage, type DirectPage } from "../helpers/direct-page.js";
import { refFor, type ModelDouble } from "../helpers/model-double.js";

/** Longer than any step below may take: a grammar that waited it out would time the step out. */
const GRAMMAR_FIND_MS = 60_000;
const STEP_MS = 15_000;

let fixture: DirectPage;
let model: ModelDouble;
let pages: StaticServer;
let browser: Browser;
let page: Page;

beforeAll(async () => {
  fixture = await startDirectPage(fileURLToPath(new URL("../fixtures/model/", import.meta.url)));
  ({ model, pages, browser, page } = fixture);
});

afterAll(async () => {
  await fixture?.close();
});

beforeEach(async () => {
  model.requests.length = 0;
  model.script = (request) => ({ content: { reason: "Archive archives the incidents.", actions: [{ verb: "click", ref: refFor(request, "Archive", "button"), value: null }] } });
  await page.goto(`${pages.url}/ticking.html`);
});

function policy(options: { grammarFindTimeoutMs?: number } = {}): StepInterpreter {
  const perform = { uploadRoot: process.cwd(), findTimeoutMs: GRAMMAR_FIND_MS, allowFileUrls: false };
  const grammar = createDeterministicInterpreter({ findTimeoutMs: GRAMMAR_FIND_MS });
  const modelInterpreter = createModelInterpreter({ provider: createModelProvider({ model: "m", baseUrl: model.baseUrl }), perform });
  return createGrammarThenModelInterpreter(grammar, modelInterpreter, options);
}

async function act(interpreter: StepInterpreter, instruction: string): Promise<StepReport> {
  const report: StepReport = {};
  const result = await interpreter.act({ page, instruction, timeoutMs: STEP_MS, signal: new AbortController().signal, secrets: [], report });
  expect(result).toMatchObject({ action: "click", element: { role: "button", name: "Archive" } });
  expect(await page.getByRole("status").textContent()).toBe("Archived 2 incidents");
  return report;
}

describe("the grammar hands a step to the model", () => {
  it("without waiting out its find timeout when the target it parsed is not on a page that never settles", async () => {
    const report = await act(policy(), 'click the "Archive all incidents" button');
    expect(report).toMatchObject({ interpreter: "model", resolved: 'click the "Archive" button', usage: { calls: 1 } });
    expect(model.requests).toHaveLength(1);
  });

  it("at once when it does not understand the instruction: no find wait at all, even one as long as the step", async () => {
    const report = await act(policy(), "get rid of the incidents on the board");
    expect(report).toMatchObject({ interpreter: "model", usage: { calls: 1 } });
  });
});
