import { describe, expect, it } from "vitest";
import { describeWfEnv, parseWfEnv, WF_ENV_NAMES, WfEnvError, wfEnvSchema } from "./env.js";
import { earlyFlag, FLAG_FALSE, FLAG_TRUE } from "./env-flag.js";

describe("the environment schema", () => {
  it("reads empty and blank values as unset, and trims the rest", () => {
    const vars = parseWfEnv({ WF_MODEL: "", WF_HOST: "   ", WF_DATA_DIR: "  data  ", WF_PORT: " 9000 " }, ["WF_MODEL", "WF_HOST", "WF_DATA_DIR", "WF_PORT", "WF_BASE_URL"]);
    expect(vars).toEqual({ WF_MODEL: undefined, WF_HOST: undefined, WF_DATA_DIR: "data", WF_PORT: 9000, WF_BASE_URL: undefined });
  });

  it("takes flags as z.stringbool does: true/false, 1/0, yes/no, any case", () => {
    const flag = (value: string) => parseWfEnv({ WF_HEADED: value }, ["WF_HEADED"]).WF_HEADED;
    for (const yes of ["true", "1", "yes", "YES", "True", "on"]) expect(flag(yes)).toBe(true);
    for (const no of ["false", "0", "no", "No", "FALSE", "off"]) expect(flag(no)).toBe(false);
    expect(flag("")).toBeUndefined();
    expect(() => flag("maybe")).toThrowError(/WF_HEADED="maybe" is not a yes\/no value\. Set it to 1\/true\/yes or 0\/false\/no, or unset it\./);
  });

  it("coerces numbers and reads modes case-insensitively", () => {
    const vars = parseWfEnv(
      { WF_SLOW_MO_MS: "250", WF_MODEL_TEMPERATURE: "0.7", WF_RETENTION_DAYS: "0.5", WF_TRACE: "On", WF_SCREENSHOT: "only-on-failure", WF_API_KEYS: "a, b,,c " },
      ["WF_SLOW_MO_MS", "WF_MODEL_TEMPERATURE", "WF_RETENTION_DAYS", "WF_TRACE", "WF_SCREENSHOT", "WF_API_KEYS"],
    );
    expect(vars).toEqual({ WF_SLOW_MO_MS: 250, WF_MODEL_TEMPERATURE: 0.7, WF_RETENTION_DAYS: 0.5, WF_TRACE: "on", WF_SCREENSHOT: "only-on-failure", WF_API_KEYS: ["a", "b", "c"] });
  });

  it("lists every bad variable in one error, with what it should be and what to do", () => {
    const env = { WF_PORT: "abc", WF_SLOW_MO_MS: "-5", WF_WORKERS: "0", WF_RETENTION_DAYS: "0", WF_LOG_LEVEL: "loud", WF_HEADED: "1", WF_TIMEOUT_MS: "1.5" };
    let error: unknown;
    try {
      parseWfEnv(env, ["WF_PORT", "WF_SLOW_MO_MS", "WF_WORKERS", "WF_RETENTION_DAYS", "WF_LOG_LEVEL", "WF_HEADED", "WF_TIMEOUT_MS"]);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(WfEnvError);
    const { problems, message, code } = error as WfEnvError;
    expect(code).toBe("WF_ENV_INVALID");
    expect(problems.map((p) => p.name)).toEqual(["WF_PORT", "WF_SLOW_MO_MS", "WF_WORKERS", "WF_RETENTION_DAYS", "WF_LOG_LEVEL", "WF_TIMEOUT_MS"]);
    expect(message).toMatch(/^6 environment variables are wrong:\n/);
    expect(message).toContain('  - Environment variable WF_PORT="abc" is not a port number, 0 to 65535. Set it to a number like 8787, or unset it.');
    expect(message).toContain('WF_SLOW_MO_MS="-5" is not a whole number of milliseconds, 0 or more.');
    expect(message).toContain('WF_WORKERS="0" is not a whole number of workers, 1 or more.');
    expect(message).toContain('WF_RETENTION_DAYS="0" is not a number of days above 0.');
    expect(message).toContain('WF_LOG_LEVEL="loud" is not one of fatal, error, warn, info, debug, trace, silent. Set it to info, or unset it.');
    expect(message).toContain('WF_TIMEOUT_MS="1.5" is not a whole number of milliseconds, 0 or more.');
  });

  it("is a zod object schema too, with the same rules as parseWfEnv", () => {
    expect(wfEnvSchema(["WF_HOST", "WF_PORT", "WF_WARM_SESSIONS"]).parse({ WF_HOST: " ", WF_PORT: "80", WF_WARM_SESSIONS: "no" })).toEqual({ WF_HOST: undefined, WF_PORT: 80, WF_WARM_SESSIONS: false });
    expect(wfEnvSchema(["WF_PORT"]).safeParse({ WF_PORT: "70000" }).success).toBe(false);
  });

  it("reads only the variables asked for: a malformed one the caller does not read is no error", () => {
    expect(parseWfEnv({ WF_PORT: "abc", WF_HOST: "0.0.0.0" }, ["WF_HOST"])).toEqual({ WF_HOST: "0.0.0.0" });
  });

  it("declares the variables once read on their own (WF_TIMING, WF_DEBUG, WF_LOCK, WF_JUNIT_OUTPUT_FILE), each with its message for a bad value", () => {
    const bad = { WF_TIMING: "sometimes", WF_DEBUG: "verbose", WF_LOCK: "replay" };
    let error: unknown;
    try {
      parseWfEnv(bad, ["WF_TIMING", "WF_DEBUG", "WF_LOCK"]);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(WfEnvError);
    expect((error as WfEnvError).problems.map((p) => p.name)).toEqual(["WF_TIMING", "WF_DEBUG", "WF_LOCK"]);
    const message = (error as WfEnvError).message;
    expect(message).toContain('Environment variable WF_TIMING="sometimes" is not a yes/no value. Set it to 1/true/yes or 0/false/no, or unset it.');
    expect(message).toContain('Environment variable WF_DEBUG="verbose" is not a yes/no value.');
    expect(message).toContain('Environment variable WF_LOCK="replay" is not one of frozen, read, write, heal, off. Set it to write, or unset it.');
    expect(parseWfEnv({ WF_TIMING: "1", WF_DEBUG: "no", WF_LOCK: "Write", WF_JUNIT_OUTPUT_FILE: " out/junit.xml " }, ["WF_TIMING", "WF_DEBUG", "WF_LOCK", "WF_JUNIT_OUTPUT_FILE"])).toEqual({
      WF_TIMING: true,
      WF_DEBUG: false,
      WF_LOCK: "write",
      WF_JUNIT_OUTPUT_FILE: "out/junit.xml",
    });
  });

  it("reads the variables the CLI's install-browser and store commands take as text (no bad value): blank is unset, the rest trimmed", () => {
    const names = ["WF_CHROMIUM_PATH", "WF_BROWSER_ENDPOINT", "WF_DATABASE_URL", "WF_JUNIT_OUTPUT_FILE"] as const;
    expect(parseWfEnv({ WF_CHROMIUM_PATH: "  ", WF_BROWSER_ENDPOINT: "", WF_DATABASE_URL: " postgres://h/db ", WF_JUNIT_OUTPUT_FILE: "\t" }, names)).toEqual({
      WF_CHROMIUM_PATH: undefined,
      WF_BROWSER_ENDPOINT: undefined,
      WF_DATABASE_URL: "postgres://h/db",
      WF_JUNIT_OUTPUT_FILE: undefined,
    });
  });

  it("reads an early flag (read before zod loads) with the schema's words: the same answer for every yes/no word, and no for a bad value the schema refuses", () => {
    for (const word of [...FLAG_TRUE, ...FLAG_FALSE, "YES", " Off ", "", "  "]) {
      expect(earlyFlag({ WF_TIMING: word }, "WF_TIMING"), word).toBe(parseWfEnv({ WF_TIMING: word }, ["WF_TIMING"]).WF_TIMING);
    }
    expect(earlyFlag({ WF_DEBUG: "verbose" }, "WF_DEBUG")).toBeUndefined();
    expect(() => parseWfEnv({ WF_DEBUG: "verbose" }, ["WF_DEBUG"])).toThrowError(WfEnvError);
    expect(earlyFlag({}, "WF_DEBUG")).toBeUndefined();
  });

  it("describes every variable (the READMEs' tables list the same names)", () => {
    expect(Object.keys(wfEnvSchema().shape)).toEqual(WF_ENV_NAMES);
    expect(WF_ENV_NAMES.length).toBeGreaterThan(45);
    const refusing: string[] = [];
    for (const name of WF_ENV_NAMES) {
      const meta = describeWfEnv(name);
      expect(meta.description.length, name).toBeGreaterThan(10);
      // A value no variable's form allows: either the variable takes any text (and says so), or
      // its error names the form it expects, which is what a user reads to fix it.
      let refusal: unknown;
      try {
        parseWfEnv({ [name]: "§not a value§" }, [name]);
      } catch (error) {
        refusal = error;
      }
      if (refusal === undefined) {
        expect(["a string", "a comma-separated list of keys"], name).toContain(meta.expected);
      } else {
        refusing.push(name);
        expect(refusal, name).toBeInstanceOf(WfEnvError);
        expect((refusal as Error).message, name).toContain(name);
        expect((refusal as Error).message, name).toContain(meta.expected);
      }
    }
    expect(refusing).toEqual(expect.arrayContaining(["WF_PORT", "WF_TIMING", "WF_DEBUG", "WF_LOCK"]));
  });
});
