import { describe, expect, it } from "vitest";
import { ROUTES, routePath } from "./index.js";

describe("routePath", () => {
  it("fills each placeholder with its URL-encoded value, the same on every call of a template", () => {
    const first = routePath(`${ROUTES.sessionView}/screenshots/{stepId}`, { id: "s 1/2", stepId: "st?#" });
    expect(first).toBe("/apis/request/workflow/view/s%201%2F2/screenshots/st%3F%23");
    expect(routePath(`${ROUTES.sessionView}/screenshots/{stepId}`, { id: "a", stepId: "b" })).toBe("/apis/request/workflow/view/a/screenshots/b");
    expect(routePath(ROUTES.workflowList)).toBe("/apis/request/workflows");
    expect(routePath("/{a}{b}", { a: "x", b: "y" })).toBe("/xy");
  });

  it("names the placeholder that has no value", () => {
    expect(() => routePath(ROUTES.stepRun, {})).toThrow(/missing value for \{id\}/);
  });
});
