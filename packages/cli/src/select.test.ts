import { describe, expect, it } from "vitest";
import { workflow, type Workflow } from "@wf/core";
import { entryId, selectEntries } from "./select.js";
import type { WorkflowEntry } from "./suite-result.js";

const entry = (file: string, name: string, tags: string[] = []): WorkflowEntry => ({ file: `/p/${file}`, relFile: file, name, title: name, repeatEachIndex: 0, workflow: workflow({ name }, async () => {}) as unknown as Workflow, tags });
const found = [entry("flows/cart.ts", "cart", ["@smoke"]), entry("flows/login.ts", "login", ["@smoke", "@auth"]), entry("flows/report.ts", "report")];
const projects = [
  { name: "desktop", use: {} },
  { name: "mobile", use: { isMobile: true } },
];
const labels = (entries: WorkflowEntry[]) => entries.map((e) => `${e.project?.name ?? "-"} ${e.title}`);

describe("selectEntries", () => {
  it("runs each workflow once per project, project by project, and once without projects", () => {
    expect(labels(selectEntries(found, { projects }).entries)).toEqual(["desktop cart", "desktop login", "desktop report", "mobile cart", "mobile login", "mobile report"]);
    expect(labels(selectEntries(found, {}).entries)).toEqual(["- cart", "- login", "- report"]);
  });

  it("greps the project, file, name and tags, as Playwright's --grep", () => {
    expect(labels(selectEntries(found, { projects, grep: "@auth" }).entries)).toEqual(["desktop login", "mobile login"]);
    expect(labels(selectEntries(found, { projects, grep: "^mobile .*@smoke" }).entries)).toEqual(["mobile cart", "mobile login"]);
    expect(labels(selectEntries(found, { grepInvert: "@smoke" }).entries)).toEqual(["- report"]);
    expect(labels(selectEntries(found, { grep: "flows/rep" }).entries)).toEqual(["- report"]);
    expect(() => selectEntries(found, { grep: "(" })).toThrow(/--grep "\(" is not a regular expression/);
  });

  it("keeps the last run's failures, then repeats, then shards; says when the selection was cut", () => {
    const failed = new Set(["[mobile] flows/cart.ts › cart", "[desktop] flows/report.ts › report"]);
    const picked = selectEntries(found, { projects, lastFailed: failed, repeatEach: 2, shard: { current: 2, total: 2 } });
    expect(labels(picked.selected)).toEqual(["desktop report", "desktop report (repeat #1)", "mobile cart", "mobile cart (repeat #1)"]);
    expect(labels(picked.entries)).toEqual(["mobile cart", "mobile cart (repeat #1)"]);
    expect(picked.cut).toBe(true);
    expect(selectEntries(found, { projects, repeatEach: 3 }).cut).toBe(false);
    expect(entryId(picked.entries[0]!)).toBe("[mobile] flows/cart.ts › cart");
  });
});
