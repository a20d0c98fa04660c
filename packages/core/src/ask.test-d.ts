/**
 * Type tests (vitest typecheck): `ask` infers the schema's type in the editor, for zod 4 and zod 3
 * schemas, and `workflow()` hands its handler typed params.
 */
import { describe, expectTypeOf, it } from "vitest";
import { z } from "zod";
import { z as z3 } from "zod/v3";
import { act, ask, decodeAnswer, step, workflow } from "./index.js";

describe("ask", () => {
  it("without a schema answers a string", () => {
    expectTypeOf(ask("the page title")).toEqualTypeOf<Promise<string>>();
    expectTypeOf(ask("the page title", { timeoutMs: 5_000, retries: 1 })).toEqualTypeOf<Promise<string>>();
  });

  it("with a zod 4 schema answers z.infer of it", () => {
    const Price = z.object({ name: z.string(), price: z.number(), note: z.string().optional() });
    expectTypeOf(ask("the prices", z.array(Price))).toEqualTypeOf<Promise<z.infer<typeof Price>[]>>();
    expectTypeOf(ask("the prices", z.array(Price), { retries: 2 })).toEqualTypeOf<Promise<Array<{ name: string; price: number; note?: string | undefined }>>>();
    expectTypeOf(ask("a count", z.number())).toEqualTypeOf<Promise<number>>();
    expectTypeOf(ask("a color", z.enum(["red", "green"]))).toEqualTypeOf<Promise<"red" | "green">>();
  });

  it("answers the schema's output type when it transforms or has defaults", () => {
    expectTypeOf(ask("a length", z.string().transform((s) => s.length))).toEqualTypeOf<Promise<number>>();
    expectTypeOf(ask("a page", z.object({ n: z.number().default(1) }))).toEqualTypeOf<Promise<{ n: number }>>();
  });

  it("with a zod 3 schema answers z.infer of it", () => {
    const Row = z3.object({ id: z3.number(), tags: z3.array(z3.string()), when: z3.date().optional() });
    expectTypeOf(ask("the rows", z3.array(Row))).toEqualTypeOf<Promise<z3.infer<typeof Row>[]>>();
    expectTypeOf(ask("a flag", z3.boolean())).toEqualTypeOf<Promise<boolean>>();
  });

  it("refuses something that is not a schema or options", () => {
    // @ts-expect-error a number is neither a schema nor options
    void ask("x", 42);
  });

  it("act takes an instruction and options", () => {
    expectTypeOf(act).parameter(0).toEqualTypeOf<string>();
  });

  it("decodeAnswer returns the schema's output type", () => {
    expectTypeOf(decodeAnswer(z.array(z.number()), {})).toEqualTypeOf<number[]>();
    expectTypeOf(decodeAnswer(z3.object({ a: z3.string() }), {})).toEqualTypeOf<{ a: string }>();
  });
});

describe("workflow", () => {
  it("hands the handler the parsed params", () => {
    workflow(
      { name: "typed", params: z.object({ q: z.string(), limit: z.number().default(10), tags: z.array(z.string()).optional() }) },
      async ({ params, signal, log }) => {
        expectTypeOf(params).toEqualTypeOf<{ q: string; limit: number; tags?: string[] | undefined }>();
        expectTypeOf(signal).toEqualTypeOf<AbortSignal>();
        expectTypeOf(log).parameter(0).toEqualTypeOf<string>();
        return params.q;
      },
    );
  });

  it("without params the handler gets an empty record", () => {
    workflow({ name: "bare" }, async ({ params }) => {
      expectTypeOf(params).toEqualTypeOf<Record<string, never>>();
    });
  });

  it("checks the handler's return value against output", () => {
    const wf = workflow({ name: "out", output: z.object({ total: z.number() }) }, async () => ({ total: 1 }));
    expectTypeOf(wf.handler).returns.resolves.toEqualTypeOf<{ total: number }>();
    // @ts-expect-error the handler must return what output takes
    workflow({ name: "bad-out", output: z.object({ total: z.number() }) }, async () => ({ total: "1" }));
  });
});

describe("step", () => {
  it("returns its function's value, keeping ask's inferred type through it", () => {
    expectTypeOf(step("read prices", () => ask("the prices", z.array(z.object({ price: z.number() }))))).toEqualTypeOf<Promise<Array<{ price: number }>>>();
    expectTypeOf(step("a sync value", () => 42)).toEqualTypeOf<Promise<number>>();
    expectTypeOf(step("nothing", async () => {
      await act('click "Go"');
    })).toEqualTypeOf<Promise<void>>();
  });
});
