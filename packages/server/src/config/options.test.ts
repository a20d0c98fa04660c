import { describe, expect, it } from "vitest";
import { assertDisplay, resolveServerOptions } from "./options.js";

describe("headed and slowMo options", () => {
  it("are headless and not slowed down by default", () => {
    const resolved = resolveServerOptions({}, {});
    expect(resolved.headed).toBe(false);
    expect(resolved.slowMoMs).toBe(0);
  });

  it("read WF_HEADED and WF_SLOW_MO_MS; an option wins over its variable", () => {
    const env = { WF_HEADED: "1", WF_SLOW_MO_MS: "250", DISPLAY: ":99" };
    expect(resolveServerOptions({}, env)).toMatchObject({ headed: true, slowMoMs: 250 });
    expect(resolveServerOptions({ headed: false, slowMoMs: 0 }, env)).toMatchObject({ headed: false, slowMoMs: 0 });
  });

  it("refuse a headed browser on Linux without a display, saying what to do", () => {
    expect(() => assertDisplay({}, "linux")).toThrowError(/needs a display.*neither DISPLAY nor WAYLAND_DISPLAY is set.*xvfb-run/s);
    expect(() => assertDisplay({ DISPLAY: " " }, "linux")).toThrowError(expect.objectContaining({ code: "WF_NO_DISPLAY" }));
    expect(() => assertDisplay({ DISPLAY: ":0" }, "linux")).not.toThrow();
    expect(() => assertDisplay({ WAYLAND_DISPLAY: "wayland-0" }, "linux")).not.toThrow();
    expect(() => assertDisplay({}, "darwin")).not.toThrow();
  });

  it("check the display only for a browser they launch (not one reached over CDP)", () => {
    if (process.platform === "linux") expect(() => resolveServerOptions({ headed: true }, {})).toThrowError(/needs a display/);
    expect(resolveServerOptions({ headed: true, browserEndpoint: "http://127.0.0.1:9222" }, {}).headed).toBe(true);
  });

  it("refuse a negative WF_SLOW_MO_MS", () => {
    expect(() => resolveServerOptions({}, { WF_SLOW_MO_MS: "-5" })).toThrowError(/WF_SLOW_MO_MS="-5" is not a whole number of milliseconds, 0 or more/);
    expect(() => resolveServerOptions({ slowMoMs: -1 }, {})).toThrowError(/slowMoMs must be 0 or more/);
  });
});
