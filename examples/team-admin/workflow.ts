/**
 * Runs a small team admin app (the page in `app/`, shipped with the example) the way its admin
 * does: signs in, invites a member with a form (a text field, a select, a checkbox and a file
 * upload), removes another through a confirmation dialog, and checks what the page shows after
 * each step. Grammar steps and checks only: no model is needed.
 *
 *   pnpm wf run examples/team-admin/workflow.ts
 */
import { act, ask, check, secret, workflow } from "@wf/core";
import { fileURLToPath } from "node:url";
import { relative } from "node:path";
import { z } from "zod";

/** The app's page, opened from disk (the embedded server of `wf run` opens `file:` URLs). */
export const APP_URL = new URL("./app/index.html", import.meta.url).href;
/** The badge uploaded, relative to the folder `wf run` starts in (the embedded server's upload root). */
export const BADGE_FILE = relative(process.cwd(), fileURLToPath(new URL("./app/badge.txt", import.meta.url)));

/** A row of the members table, as the page writes it. */
export const Member = z.object({ Name: z.string(), Role: z.string(), Newsletter: z.string(), Badge: z.string() });

export default workflow(
  {
    name: "team-admin",
    params: z.object({
      url: z.string().default(APP_URL),
      email: z.string().default("admin@example.com"),
      password: secret(z.string().default("correct horse")),
      invitee: z.string().default("Grace Hopper"),
    }),
    output: z.object({ members: z.array(Member) }),
  },
  async ({ params }) => {
    await act(`go to ${params.url}`);
    await check('the title is "Team admin · sign in"');

    // A wrong password is refused, and the sign-in form stays.
    await act('type "admin@example.com" into "Email"');
    await act('type "wrong" into "Password"');
    await act('click "Sign in"');
    await check('the page shows "Wrong email or password."');

    await act(`type "${params.email}" into "Email"`);
    await act(`type "${params.password}" into "Password"`);
    await act('click "Sign in"');
    await check(`the page shows "Signed in as ${params.email}"`);
    await check('"Sign in" is not visible');
    await check('there are 2 "Remove" buttons');

    // The invite form: a select, a checkbox and a file upload.
    await act(`type "${params.invitee}" into "Name"`);
    await act('select "Editor" from "Role"');
    await act('check "Subscribe to the newsletter"');
    await act(`upload "${BADGE_FILE}" to "Badge file"`);
    await check('the "Role" field is "Editor"');
    await check('the "Subscribe to the newsletter" checkbox is checked');
    await act('click "Send invite"');
    await check(`the page shows "Invite sent to ${params.invitee}."`);
    await check(`there are 1 "${params.invitee}" rows`);
    await check('the "Name" field is empty');

    // Removing a member asks for confirmation in a dialog.
    await act('click "Remove" in the "Alan Turing" row');
    await check('the page shows "Remove Alan Turing from the team?" in the "Remove member" dialog');
    await act('click "Remove" in the "Remove member" dialog');
    await check('the page shows "Alan Turing was removed."');
    await check('"Remove member" is not visible');
    await check('the page shows "2 members"');

    const members = await ask("the members table", z.array(Member));
    return { members };
  },
);
