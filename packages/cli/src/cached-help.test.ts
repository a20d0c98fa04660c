import { describe, expect, it } from "vitest";
import { cachedHelp, helpWidth } from "./cached-help.js";

const TABLE = { "80": "at 80\n", "100": "at 100\n", "110": "at 110\n" };

describe("cachedHelp", () => {
  it("answers --help and -h alone, at the width yargs would wrap to", () => {
    expect(cachedHelp(["--help"], undefined, {}, false, TABLE)).toBe("at 100\n");
    expect(cachedHelp(["-h"], 80, {}, false, TABLE)).toBe("at 80\n");
    expect(cachedHelp(["--help"], 200, {}, false, TABLE)).toBe("at 110\n");
    expect(helpWidth(200)).toBe(110);
  });

  it("leaves to yargs other arguments, other widths, a .env and any non-English locale", () => {
    expect(cachedHelp(["run", "--help"], undefined, {}, false, TABLE)).toBeUndefined();
    expect(cachedHelp(["--help", "--version"], undefined, {}, false, TABLE)).toBeUndefined();
    expect(cachedHelp([], undefined, {}, false, TABLE)).toBeUndefined();
    expect(cachedHelp(["--help"], 72, {}, false, TABLE)).toBeUndefined();
    expect(cachedHelp(["--help"], undefined, {}, true, TABLE)).toBeUndefined();
    expect(cachedHelp(["--help"], undefined, { LANG: "de_DE.UTF-8" }, false, TABLE)).toBeUndefined();
    // yargs takes the first set of LC_ALL, LC_MESSAGES, LANG, LANGUAGE.
    expect(cachedHelp(["--help"], undefined, { LC_ALL: "fr_FR.UTF-8", LANG: "en_US.UTF-8" }, false, TABLE)).toBeUndefined();
    expect(cachedHelp(["--help"], undefined, { LC_ALL: "C.UTF-8", LANG: "de_DE.UTF-8" }, false, TABLE)).toBe("at 100\n");
    expect(cachedHelp(["--help"], undefined, { LANG: "en_GB.UTF-8" }, false, TABLE)).toBe("at 100\n");
  });
});
