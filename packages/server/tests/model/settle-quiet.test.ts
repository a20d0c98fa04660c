/**
 * The DOM quiet before a read (`settleBeforeRead`, decision 0066): a page already settled is read
 * after two animation frames without a change, not 100 ms counted from its last re-render; what
 * the page renders a frame after a click, or once a request's answer has been handled, is still
 * waited for. A real Chromium on a page served from disk.
 */
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { settleBeforeRead } from "../../src/interpreter/page/index.js";
import { startDirectPage, type DirectPage } from "../helpers/direct-page.js";

let direct: DirectPage;

beforeAll(async () => {
  direct = await startDirectPage(fileURLToPath(new URL("../fixtures/model/", import.meta.url)));
});

afterAll(async () => {
  await direct?.close();
});

const out = () => direct.page.locator("#out").innerText();

describe("settleBeforeRead's DOM quiet", () => {
  beforeEach(async () => {
    await direct.page.goto(`${direct.pages.url}/settle-quiet.html`);
    await settleBeforeRead(direct.page, 3_000);
  });

  it("reads a page right after its own re-render without waiting for 100 ms of quiet", async () => {
    await direct.page.locator("#count").click();
    const outcome = await settleBeforeRead(direct.page, 3_000);
    expect(outcome).toMatchObject({ waited: false, capReached: false });
    expect(await out()).toBe("1 clicks");
  });

  it("waits for a panel the page renders two frames after the click", async () => {
    await direct.page.locator("#tab").click();
    const outcome = await settleBeforeRead(direct.page, 3_000);
    expect(outcome.capReached).toBe(false);
    expect(await out()).toBe("Ships in 2 days");
  });

  it("waits for an answer the page handles after its request ended", async () => {
    await direct.page.locator("#refresh").click();
    const outcome = await settleBeforeRead(direct.page, 3_000);
    expect(outcome).toMatchObject({ waited: true, capReached: false });
    expect(await out()).toBe("Refreshed: 3 new orders");
  });
});
