// Adds a to-do.
import { act, check, workflow } from "@wf/core";

export default workflow({ name: "todo-add" }, async () => {
  await act("go to /model/todo.html");
  await check('the page shows "5 items left"');
  await act('type "Buy bread" into "New to-do"');
  await act('click "Add"');
  await check('the page shows "Buy bread"');
  await check('the page shows "6 items left"');
  await check('the "New to-do" field is empty');
});
