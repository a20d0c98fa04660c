// Deletes a to-do by its button.
import { act, check, workflow } from "@wf/core";

export default workflow({ name: "todo-delete" }, async () => {
  await act("go to /model/todo.html");
  await act('click "Delete Walk the dog"');
  await check('"Walk the dog" is not visible');
  await check('the page shows "4 items left"');
});
