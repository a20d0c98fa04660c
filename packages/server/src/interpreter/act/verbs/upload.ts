/**
 * `upload "report.pdf" to "Attachment"`: a file input, or a label of one (Playwright sets the files
 * on its control); otherwise a button that opens the file chooser (a drop zone's "browse"), clicked
 * and the chooser answered.
 */
import path from "node:path";
import { InterpreterError } from "../../errors.js";
import { PURPOSE_ROLES } from "../../locate/index.js";
import { resolveUpload } from "../upload-path.js";
import { identity, type VerbHandler } from "../verb.js";

/** How long an upload waits for the file chooser a clicked button should open, in ms. */
const CHOOSER_WAIT_MS = 3_000;

export const upload: VerbHandler<"upload"> = {
  // A file input is a button in Chromium's accessibility tree.
  acts: PURPOSE_ROLES.upload,
  // A model's (or a lock's) element must take files; the grammar's may be any element that opens a
  // file chooser when clicked (checked by the chooser opening), as the instruction named it.
  fits: {
    what: "a file input, its label, or a button beside one (a drop zone's \"browse\")",
    enabled: true,
    test: (el, _action, given) => el.fileInput || el.nearFileInput || !given,
  },
  async run(action, { page, clock, options, find, settle }) {
    const file = options.uploads?.get(action.path) ?? resolveUpload(options.uploadRoot, action.path);
    const el = await find(action.target, "upload");
    const takesFiles = await el.locator.evaluate(
      (node) => (node instanceof HTMLInputElement && node.type === "file") || (node instanceof HTMLLabelElement && node.control instanceof HTMLInputElement && node.control.type === "file"),
      undefined,
      { timeout: clock.left() },
    );
    if (takesFiles) {
      await el.locator.setInputFiles(file, { timeout: clock.left() });
    } else {
      const chooser = page.waitForEvent("filechooser", { timeout: Math.min(clock.left(), CHOOSER_WAIT_MS) });
      chooser.catch(() => undefined);
      await el.locator.click({ timeout: clock.left() });
      const opened = await chooser.catch(() => undefined);
      if (!opened) {
        throw new InterpreterError(
          "WF_ELEMENT_NOT_FOUND",
          `${el.description} is not a file input, and clicking it opened no file chooser within ${CHOOSER_WAIT_MS} ms. Name the file input, its label, or the button that opens the file chooser.`,
          { target: action.target.text, candidates: [{ role: el.role, name: el.name }] },
        );
      }
      await opened.setFiles(file, { timeout: clock.left() });
    }
    await settle();
    return { action: "upload", target: el.description, element: identity(el), message: `Uploaded ${path.basename(file)} to ${el.description}` };
  },
};
