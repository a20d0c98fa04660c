// Completes a to-do, then clears the completed ones.
import { act, check, workflow } from "@wf/core";

export default workflow({ name: "todo-complete" }, async () => {
  await act("go to /model/todo.html");
  await act('check "Buy milk"');
  await check('the "Buy milk" checkbox is checked');
  await check('the page shows "4 items left"');
  await act('click "Clear completed"');
  await check('"Buy milk" is not visible');
  await check('the page shows "4 items left"');
});
