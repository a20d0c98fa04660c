/**
 * Helpers the examples share: where Debian puts the PostgreSQL documentation, and opening one of
 * its pages with a message that says what to install when it is not there.
 */
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { WfError, act, isWfError } from "@wf/core";

/** Folder of the HTML documentation shipped by Debian's `postgresql-doc-15` package. */
export const PG_DOCS_DIR = "/usr/share/doc/postgresql-doc-15/html";

/** `file://` URL of a page of the PostgreSQL documentation, e.g. `pgDocsUrl("limits.html")`. */
export function pgDocsUrl(page: string): string {
  return `file://${PG_DOCS_DIR}/${page}`;
}

/** The command that installs the documentation the examples read. */
export const PG_DOCS_INSTALL = "apt-get install postgresql-doc-15";

/**
 * Opens `url` in the run's browser with an ACT `go to` step.
 *
 * When the page is a local file that does not exist on this machine (the documentation package is
 * not installed), fails before sending the step, with code `WF_EXAMPLE_PAGE_MISSING` and a message
 * naming the package to install. When the step itself fails on a `file://` URL (the service runs
 * on another machine that lacks the package), the same advice is added to the step's error.
 *
 * @param url - an `http(s)://` or `file://` URL.
 * @throws {@link WfError} `WF_EXAMPLE_PAGE_MISSING` when the page is not on this machine.
 * @throws `StepFailedError` when the service cannot open the page.
 */
export async function openDocsPage(url: string): Promise<void> {
  const isFile = url.startsWith("file:");
  if (isFile && !existsSync(fileURLToPath(url))) throw pageMissing(url);
  try {
    await act(`go to ${url}`);
  } catch (error) {
    if (isFile && isWfError(error) && error.code === "WF_STEP_FAILED") throw pageMissing(url, error);
    throw error;
  }
}

function pageMissing(url: string, cause?: unknown): WfError {
  return new WfError(
    "WF_EXAMPLE_PAGE_MISSING",
    `Cannot open ${url}: the page is not on ${cause ? "the machine that runs the browser" : "this machine"}. ` +
      `The examples read the PostgreSQL documentation that Debian ships; install it with \`${PG_DOCS_INSTALL}\` ` +
      `(as root, or with sudo), or pass the page's location as a param.`,
    cause ? { cause } : undefined,
  );
}
