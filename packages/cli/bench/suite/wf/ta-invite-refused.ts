// An invite with no role is refused, and nothing is added.
import { act, check, workflow } from "@wf/core";

export default workflow({ name: "ta-invite-refused" }, async () => {
  await act("go to /team/index.html");
  await act('type "admin@example.com" into "Email"');
  await act('type "correct horse" into "Password"');
  await act('click "Sign in"');
  await act('type "Grace Hopper" into "Name"');
  await act('click "Send invite"');
  await check('the page shows "A name and a role are needed."');
  await check('the page shows "2 members"');
});
