import { describe, expect, it } from "vitest";
import { describeWfEnv, parseWfEnv, WF_ENV_NAMES, WfEnvError, wfEnvSchema } from "./env.js";

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

  it("describes every variable (the READMEs' tables list the same names)", () => {
    expect(Object.keys(wfEnvSchema().shape)).toEqual(WF_ENV_NAMES);
    expect(WF_ENV_NAMES.length).toBeGreaterThan(45);
    for (const name of WF_ENV_NAMES) {
      const meta = describeWfEnv(name);
      expect(meta.description.length, name).toBeGreaterThan(10);
      expect(meta.expected, name).toBeTruthy();
    }
  });
});
