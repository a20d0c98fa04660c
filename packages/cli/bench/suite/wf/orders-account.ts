// Reads two labelled values of the orders page's summary.
import { act, ask, workflow } from "@wf/core";
import { z } from "zod";
import { ACCOUNT, expectEqual } from "../expected.js";

export default workflow({ name: "orders-account" }, async () => {
  await act("go to /model/read-orders.html");
  const account = await ask("the account manager and the balance due", z.object({ manager: z.string(), balance: z.number() }));
  expectEqual("the account", account, ACCOUNT);
});
