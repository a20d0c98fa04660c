// Inviting a member: a text field, a select and a checkbox, then the new row.
import { act, check, workflow } from "@wf/core";

export default workflow({ name: "ta-invite" }, async () => {
  await act("go to /team/index.html");
  await act('type "admin@example.com" into "Email"');
  await act('type "correct horse" into "Password"');
  await act('click "Sign in"');
  await act('type "Grace Hopper" into "Name"');
  await act('select "Editor" from "Role"');
  await act('check "Subscribe to the newsletter"');
  await check('the "Role" field is "Editor"');
  await check('the "Subscribe to the newsletter" checkbox is checked');
  await act('click "Send invite"');
  await check('the page shows "Invite sent to Grace Hopper."');
  await check('there are 1 "Grace Hopper" rows');
  await check('the "Name" field is empty');
  await check('the page shows "3 members"');
});
