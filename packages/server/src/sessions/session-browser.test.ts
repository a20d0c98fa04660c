import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, expect, it } from "vitest";
import { saveScreenshot, screenshotFile } from "./session-browser.js";

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "wf-shot-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

it("writes the picture whole", async () => {
  const png = Buffer.from("89504e470d0a1a0a0000000d49484452", "hex");
  expect(await saveScreenshot(dir, "st1", png)).toBe(true);
  expect(await readFile(screenshotFile(dir, "st1"))).toEqual(png);
  expect(await readdir(dir)).toEqual(["st1.png"]);
});

it("a write that fails part-way (a full disk) leaves no empty or partial picture, and says so", async () => {
  // Bytes that stop coming after the first chunk, as a disk that fills does: the file was opened
  // and partly written when the write fails.
  const failing = (async function* () {
    yield Buffer.from("89504e470d0a1a0a", "hex");
    throw Object.assign(new Error("ENOSPC: no space left on device, write"), { code: "ENOSPC" });
  })();
  expect(await saveScreenshot(dir, "st2", failing as unknown as Buffer)).toBe(false);
  expect(await readdir(dir)).toEqual([]);
});
