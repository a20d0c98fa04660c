// Signing in to the team admin app shows the members.
import { act, check, workflow } from "@wf/core";

export default workflow({ name: "ta-signin" }, async () => {
  await act("go to /team/index.html");
  await act('type "admin@example.com" into "Email"');
  await act('type "correct horse" into "Password"');
  await act('click "Sign in"');
  await check('the page shows "Signed in as admin@example.com"');
  await check('the title is "Team admin · members"');
  await check('"Sign in" is not visible');
  await check('there are 2 "Remove" buttons');
});
