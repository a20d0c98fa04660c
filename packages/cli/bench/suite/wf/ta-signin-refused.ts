// The team admin app refuses a wrong password and keeps its sign-in form.
import { act, check, workflow } from "@wf/core";

export default workflow({ name: "ta-signin-refused" }, async () => {
  await act("go to /team/index.html");
  await check('the title is "Team admin · sign in"');
  await act('type "admin@example.com" into "Email"');
  await act('type "wrong" into "Password"');
  await act('click "Sign in"');
  await check('the page shows "Wrong email or password."');
  await check('the title is "Team admin · sign in"');
});
