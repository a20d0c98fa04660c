import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ParamsValidationError } from "./errors.js";
import { paramsJsonSchema, parseParamsFromStrings } from "./params.js";
import { secret } from "./secret.js";
import { workflow } from "./workflow.js";

const wf = workflow(
  {
    name: "typed-params",
    params: z.object({
      q: z.string(),
      limit: z.number().int().default(10),
      ratio: z.number().optional(),
      exact: z.boolean().optional(),
      color: z.enum(["red", "green"]),
      level: z.literal([1, 2]).optional(),
      tags: z.array(z.string()).default([]),
      filter: z.object({ from: z.number(), to: z.number() }).optional(),
      since: z.date().optional(),
      note: z.string().nullable().optional(),
      count: z.number().nullable().optional(),
      either: z.union([z.number(), z.string()]).optional(),
      big: z.bigint().optional(),
      password: secret(z.string().default("hunter2")),
    }),
  },
  async ({ params }) => params,
);

describe("parseParamsFromStrings", () => {
  it("converts each string by its field's type, then applies defaults", () => {
    const params = parseParamsFromStrings(wf, {
      q: "postgres numeric",
      ratio: "0.5",
      exact: "TRUE",
      color: "green",
      level: "2",
      tags: '["a","b"]',
      filter: '{"from":1,"to":5}',
      since: "2024-03-01T00:00:00Z",
      note: "null",
      count: "null",
      either: "7",
      big: "12345678901234567890",
    });
    expect(params).toEqual({
      q: "postgres numeric",
      limit: 10,
      ratio: 0.5,
      exact: true,
      color: "green",
      level: 2,
      tags: ["a", "b"],
      filter: { from: 1, to: 5 },
      since: new Date("2024-03-01T00:00:00Z"),
      // A nullable string keeps the text "null"; a nullable number takes null.
      note: "null",
      count: null,
      either: 7,
      big: 12345678901234567890n,
      password: "hunter2",
    });
  });

  it("reads booleans as true/false/1/0", () => {
    for (const [raw, value] of [["true", true], ["false", false], ["1", true], ["0", false], ["False", false]] as const) {
      expect(parseParamsFromStrings(wf, { q: "x", color: "red", exact: raw }).exact).toBe(value);
    }
  });

  it("keeps a string that is not a number for a union that takes strings", () => {
    expect(parseParamsFromStrings(wf, { q: "x", color: "red", either: "seven" }).either).toBe("seven");
  });

  it("reports every bad field in one ParamsValidationError", () => {
    let error: unknown;
    try {
      parseParamsFromStrings(wf, { limit: "ten", exact: "yes", color: "blue", tags: "a,b" });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ParamsValidationError);
    const paths = (error as ParamsValidationError).issues.map((i) => i.path.join("."));
    expect(paths).toEqual(expect.arrayContaining(["q", "limit", "exact", "color", "tags"]));
    expect((error as ParamsValidationError).message).toMatch(/Invalid params for workflow "typed-params"/);
  });

  it("works for a workflow without params", () => {
    const none = workflow({ name: "no-params" }, async () => "ok");
    expect(parseParamsFromStrings(none, {})).toEqual({});
  });
});

describe("paramsJsonSchema", () => {
  it("describes the params' input, marks secrets writeOnly and hides their defaults", () => {
    const schema = paramsJsonSchema(wf) as { type: string; properties: Record<string, Record<string, unknown>>; required: string[] };
    expect(schema.type).toBe("object");
    expect(schema.required).toEqual(["q", "color"]);
    expect(schema.properties.limit).toMatchObject({ type: "integer", default: 10 });
    expect(schema.properties.color).toMatchObject({ enum: ["red", "green"] });
    expect(schema.properties.since).toEqual({ type: "string", format: "date-time" });
    expect(schema.properties.password).toEqual({ type: "string", writeOnly: true });
    expect(JSON.stringify(schema)).not.toContain("hunter2");
    expect(schema).not.toHaveProperty("$schema");
  });

  it("gives an empty closed object for a workflow without params", () => {
    expect(paramsJsonSchema(workflow({ name: "no-params" }, async () => 1))).toEqual({ type: "object", properties: {}, additionalProperties: false });
  });
});
