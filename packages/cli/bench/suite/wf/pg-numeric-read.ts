// Reads one cell of the numeric types table of the PostgreSQL documentation.
import { act, ask, workflow } from "@wf/core";
import { z } from "zod";
import { BIGINT_SIZE, expectEqual } from "../expected.js";

export default workflow({ name: "pg-numeric-read" }, async () => {
  await act("go to /pg/datatype-numeric.html");
  const size = await ask("the storage size of bigint", z.string());
  expectEqual("the storage size of bigint", size, BIGINT_SIZE);
});
