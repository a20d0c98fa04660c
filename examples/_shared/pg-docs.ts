/**
 * What the examples share: where Debian puts the PostgreSQL documentation, and a check that a
 * page is there before the workflow opens it, with a message that says what to install.
 */
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { WfError } from "@wf/core";

/** Folder of the HTML documentation shipped by Debian's `postgresql-doc-15` package. */
export const PG_DOCS_DIR = "/usr/share/doc/postgresql-doc-15/html";

/** The command that installs the documentation the examples read. */
export const PG_DOCS_INSTALL = "apt-get install postgresql-doc-15";

/** `file://` URL of a page of the PostgreSQL documentation, e.g. `pgDocsUrl("limits.html")`. */
export function pgDocsUrl(page: string): string {
  return `file://${PG_DOCS_DIR}/${page}`;
}

/**
 * Returns `url` unchanged when it can be opened: any `http(s)://` URL, or a `file://` URL of a file
 * that exists on this machine (the embedded service runs here too). Call it before the `go to`
 * step, so a missing package is reported as such rather than as a browser error:
 *
 * @example await act(`go to ${requirePage(params.pageUrl)}`)
 * @throws {@link WfError} `WF_EXAMPLE_PAGE_MISSING` when a `file://` page does not exist, with the
 *   `apt-get install` command that provides it.
 */
export function requirePage(url: string): string {
  if (url.startsWith("file:") && !existsSync(fileURLToPath(url))) {
    throw new WfError(
      "WF_EXAMPLE_PAGE_MISSING",
      `Cannot open ${url}: there is no such file on this machine. The examples read the PostgreSQL ` +
        `documentation that Debian ships; install it with \`${PG_DOCS_INSTALL}\` (as root, or with sudo), ` +
        `or pass the page's location as a param.`,
    );
  }
  return url;
}
