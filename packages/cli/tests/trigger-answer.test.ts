/**
 * How `wf trigger --wait` shows a stored ASK's answer: the step `result` on the wire is the answer
 * as the strict schema has it, so a non-object answer arrives wrapped as `{ value: … }`
 * (`WRAPPER_KEY` of `@wf/core`) and is shown unwrapped.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { WRAPPER_KEY, decodeAnswer } from "@wf/core";
import { decodeStepAnswer } from "../src/commands/trigger.js";

describe("decodeStepAnswer", () => {
  it("unwraps what the strict schema wrapped, as @wf/core decodes it", () => {
    for (const [schema, answer] of [
      [z.string(), "Fixture shop"],
      [z.number(), 42],
      [z.array(z.string()), ["a", "b"]],
      [z.enum(["yes", "no"]), "no"],
      [z.string().nullable(), null],
    ] as const) {
      const wire = { [WRAPPER_KEY]: answer };
      expect(decodeStepAnswer(wire)).toEqual(decodeAnswer(schema, wire));
    }
  });

  it("leaves object answers, and anything else, as they are", () => {
    expect(decodeStepAnswer({ title: "Page 2" })).toEqual({ title: "Page 2" });
    expect(decodeStepAnswer({ value: 1, unit: "ms" })).toEqual({ value: 1, unit: "ms" });
    expect(decodeStepAnswer("text")).toBe("text");
    expect(decodeStepAnswer(null)).toBeNull();
    expect(decodeStepAnswer([{ value: 1 }])).toEqual([{ value: 1 }]);
  });
});
