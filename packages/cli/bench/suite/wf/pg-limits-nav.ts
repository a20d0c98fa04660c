// Follows the PostgreSQL documentation's link from its home page to the appendix on limits.
import { act, check, workflow } from "@wf/core";

export default workflow({ name: "pg-limits-nav" }, async () => {
  await act("go to /pg/index.html");
  await act('click the link "K. PostgreSQL Limits"');
  await check('the title is "Appendix K. PostgreSQL Limits"');
  await check('the page shows "Table K.1. PostgreSQL Limitations"');
});
