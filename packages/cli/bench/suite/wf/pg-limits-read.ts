// Reads the limits table of the PostgreSQL documentation.
import { act, ask, workflow } from "@wf/core";
import { z } from "zod";
import { LIMITS, expectEqual } from "../expected.js";

const Limit = z.object({ item: z.string(), upperLimit: z.string() });

export default workflow({ name: "pg-limits-read" }, async () => {
  await act("go to /pg/limits.html");
  const limits = await ask("the item and upper limit of each limitation", z.array(Limit));
  expectEqual("the limits", limits, LIMITS);
});
