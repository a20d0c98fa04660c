/**
 * Ordinary Vitest tests of the team admin app (the page `../team-admin/app/` ships), written with
 * `act`, `ask` and `check` of `@wf/core`. `useWf()` gives each test its own browser session (opened
 * at its first step, closed after it) on an embedded wf server for this file; `beforeEach` hooks
 * run in the test's session too. Run by the repository's `pnpm test`, or alone:
 *
 *   npx vitest run examples/vitest-team-admin
 */
import { act, ask, check } from "@wf/core";
import { useWf } from "@wf/cli/vitest";
import { relative } from "node:path";
import { fileURLToPath } from "node:url";
import { beforeEach, describe, expect, test } from "vitest";
import { z } from "zod";

// The embedded server starts in beforeAll and each test's session opens in the hook (the default),
// so the first test's timeout is its own.
useWf();

const APP = new URL("../team-admin/app/index.html", import.meta.url).href;
/** Upload paths are relative to the folder Vitest runs in (the embedded server's upload root). */
const BADGE = relative(process.cwd(), fileURLToPath(new URL("../team-admin/app/badge.txt", import.meta.url)));

describe("team admin", () => {
  beforeEach(async () => {
    await act(`go to ${APP}`);
    await act('type "admin@example.com" into "Email"');
    await act('type "correct horse" into "Password"');
    await act('click "Sign in"');
    await check('the page shows "Signed in as admin@example.com"');
  });

  test("lists the team after sign-in", async () => {
    await check('the title is "Team admin · members"');
    const names = await ask("the members table", z.array(z.object({ Name: z.string(), Role: z.string() })));
    expect(names.map((m) => `${m.Name} (${m.Role})`)).toEqual(["Ada Lovelace (Owner)", "Alan Turing (Editor)"]);
  });

  test("refuses an invite without a role", async () => {
    await act('type "Grace Hopper" into "Name"');
    await act('click "Send invite"');
    await check('the page shows "A name and a role are needed."');
    await check('the page shows "2 members"');
  });

  test("invites a member with a role, the newsletter and a badge", async () => {
    await act('type "Grace Hopper" into "Name"');
    await act('select "Viewer" from "Role"');
    await act('check "Subscribe to the newsletter"');
    await act(`upload "${BADGE}" to "Badge file"`);
    await act('click "Send invite"');
    await check('the page shows "Invite sent to Grace Hopper."');
    await check('the page shows "badge.txt" in the "Grace Hopper" row');
    await check('the page shows "3 members"');
  });

  test("removes a member only once the dialog is confirmed", async () => {
    await act('click "Remove" in the "Alan Turing" row');
    await check('"Remove member" is visible');
    await act('click "Cancel" in the "Remove member" dialog');
    await check('the page shows "2 members"');
    await act('click "Remove" in the "Alan Turing" row');
    await act('click "Remove" in the "Remove member" dialog');
    await check('the page shows "Alan Turing was removed."');
    await check('there are 0 "Alan Turing" rows');
  });
});
