// Reads the pending orders of a back office's orders page (a table with uppercase headers).
import { act, ask, workflow } from "@wf/core";
import { z } from "zod";
import { PENDING_ORDERS, expectEqual } from "../expected.js";

const Order = z.object({ order: z.string(), customer: z.string(), total: z.number() });

export default workflow({ name: "orders-pending" }, async () => {
  await act("go to /model/read-orders.html");
  const pending = await ask("the pending orders", z.array(Order));
  expectEqual("the pending orders", pending, PENDING_ORDERS);
});
