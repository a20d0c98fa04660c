/**
 * Free-form steps on the team admin app (`../team-admin/app/`): "sign in as the admin", "remove
 * Alan Turing from the team, confirming it". The grammar cannot carry these out; a model resolves
 * them once (`wf run … --lock write` with a model configured) and the action lock beside this file,
 * `workflow.wf.lock.json`, committed, records the grammar steps it chose. Every later run replays
 * the lock with no model; `--lock frozen` (the default on CI) never calls one.
 *
 *   pnpm wf run examples/team-admin-free-form/workflow.ts --lock frozen
 */
import { act, check, secret, workflow } from "@wf/core";
import { z } from "zod";

/** The app's page, opened from disk. */
export const APP_URL = new URL("../team-admin/app/index.html", import.meta.url).href;

export default workflow(
  {
    name: "team-admin-free-form",
    params: z.object({
      url: z.string().default(APP_URL),
      email: z.string().default("admin@example.com"),
      password: secret(z.string().default("correct horse")),
    }),
  },
  async ({ params }) => {
    await act(`go to ${params.url}`);
    await act(`sign in as ${params.email} with the password ${params.password}`);
    await check(`the page shows "Signed in as ${params.email}"`);
    await act("remove Alan Turing from the team, confirming it");
    await check('the page shows "Alan Turing was removed."');
    await check('there are 0 "Alan Turing" rows');
  },
);
