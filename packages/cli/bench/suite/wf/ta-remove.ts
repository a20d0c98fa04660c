// Removing a member asks for confirmation in a dialog.
import { act, check, workflow } from "@wf/core";

export default workflow({ name: "ta-remove" }, async () => {
  await act("go to /team/index.html");
  await act('type "admin@example.com" into "Email"');
  await act('type "correct horse" into "Password"');
  await act('click "Sign in"');
  await act('click "Remove" in the "Alan Turing" row');
  await check('the page shows "Remove Alan Turing from the team?" in the "Remove member" dialog');
  await act('click "Remove" in the "Remove member" dialog');
  await check('the page shows "Alan Turing was removed."');
  await check('"Remove member" is not visible');
  await check('the page shows "1 members"');
});
