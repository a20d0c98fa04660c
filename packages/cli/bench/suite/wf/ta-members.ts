// Reads the members table after signing in.
import { act, ask, workflow } from "@wf/core";
import { z } from "zod";
import { MEMBERS, expectEqual } from "../expected.js";

const Member = z.object({ Name: z.string(), Role: z.string(), Newsletter: z.string() });

export default workflow({ name: "ta-members" }, async () => {
  await act("go to /team/index.html");
  await act('type "admin@example.com" into "Email"');
  await act('type "correct horse" into "Password"');
  await act('click "Sign in"');
  const members = await ask("the members table", z.array(Member));
  expectEqual("the members", members, MEMBERS);
});
