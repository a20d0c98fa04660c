import { expect, it } from "vitest";
import { forAuthor } from "./author-advice.js";

it("replaces the service's 'Create a new session.' with what the workflow's author can do", () => {
  const crashed = forAuthor({ code: "WF_PAGE_CRASHED", message: "The session's page crashed (its renderer process died) at https://example.com/. Create a new session." });
  expect(crashed).not.toContain("Create a new session");
  expect(crashed).toContain("at https://example.com/.");
  expect(crashed).toContain("run the workflow again");
  const hung = forAuthor({
    code: "WF_PAGE_UNRESPONSIVE",
    message: "The page https://example.com/ stopped responding: its main thread did not answer for 2 s. wf closed the page; the session goes on in a new blank tab (the next step opens it): go to a page again.",
  });
  expect(hung).not.toContain("go to a page again");
  expect(hung).toContain("wf closed the page. Check what the page does at this step");
  expect(forAuthor({ code: "WF_SESSION_CLOSED", message: "Session ab12 is failed; it takes no more steps. Create a new session." })).toBe("Session ab12 is failed; it takes no more steps. Run the workflow again.");
  // Anything else is left as it is.
  expect(forAuthor({ code: "WF_ELEMENT_NOT_FOUND", message: 'no element matches "Save".' })).toBe('no element matches "Save".');
});
