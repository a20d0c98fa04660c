/**
 * `initProject()`: the programmatic `wf init`. Writes a ready wf project into a folder.
 */
import { access, mkdir, writeFile } from "node:fs/promises";
import { basename, join, resolve } from "node:path";
import { CliUsageError } from "./errors.js";

/** Options of {@link initProject}. */
export interface InitProjectOptions {
  /** The project folder; created if missing. @default process.cwd() */
  dir?: string;
  /** Base for a relative `dir`. @default process.cwd() */
  cwd?: string;
  /** The package name. @default the folder's name, made npm-safe */
  name?: string;
}

/** What {@link initProject} wrote. */
export interface InitProjectResult {
  /** Absolute path of the project folder. */
  dir: string;
  /** The files written, relative to `dir`. */
  files: string[];
}

/**
 * Writes `package.json` (dependencies `@wf/core`, `@wf/cli`, `zod`; dev dependencies `typescript`,
 * `@types/node`), `tsconfig.json`, `.gitignore`, `wf.config.ts`, `.env.example`,
 * `workflows/example.ts` and the page it reads, `pages/example.html`. Writes nothing if any of
 * them exists.
 *
 * @throws {@link CliUsageError} `WF_CLI_FILE_EXISTS` naming every file that already exists.
 */
export async function initProject(options: InitProjectOptions = {}): Promise<InitProjectResult> {
  const dir = resolve(options.cwd ?? process.cwd(), options.dir ?? ".");
  const name = options.name ?? (basename(dir).toLowerCase().replace(/[^a-z0-9._-]+/g, "-").replace(/^[-._]+|[-._]+$/g, "") || "wf-project");
  const files = templates(name);
  const existing: string[] = [];
  for (const file of Object.keys(files)) {
    if (await access(join(dir, file)).then(() => true, () => false)) existing.push(file);
  }
  if (existing.length > 0) {
    throw new CliUsageError(
      "WF_CLI_FILE_EXISTS",
      `wf init would overwrite ${existing.map((f) => join(dir, f)).join(", ")}. Nothing was written. Run it in an empty folder (\`wf init my-project\`) or move those files away.`,
      { path: join(dir, existing[0]!) },
    );
  }
  for (const [file, text] of Object.entries(files)) {
    const path = join(dir, file);
    await mkdir(resolve(path, ".."), { recursive: true });
    await writeFile(path, text, { flag: "wx" });
  }
  return { dir, files: Object.keys(files) };
}

/** The versions a new project starts from: this release of wf, and what its files need to type-check. */
const VERSIONS = { wf: "^0.1.0", zod: "^4.1.12", typescript: "~5.9.3", typesNode: "^20.19.0" } as const;

function templates(name: string): Record<string, string> {
  return {
    "package.json":
      JSON.stringify(
        {
          name,
          private: true,
          type: "module",
          engines: { node: ">=20.19" },
          scripts: {
            start: "wf run workflows/example.ts",
            check: "wf check workflows/*.ts",
            plan: "wf plan workflows/example.ts",
            typecheck: "tsc --noEmit",
          },
          dependencies: { "@wf/cli": VERSIONS.wf, "@wf/core": VERSIONS.wf, zod: VERSIONS.zod },
          devDependencies: { "@types/node": VERSIONS.typesNode, typescript: VERSIONS.typescript },
        },
        null,
        2,
      ) + "\n",
    "tsconfig.json":
      JSON.stringify(
        {
          compilerOptions: {
            target: "ES2022",
            lib: ["ES2023"],
            module: "NodeNext",
            moduleResolution: "NodeNext",
            strict: true,
            skipLibCheck: true,
            noEmit: true,
            types: ["node"],
          },
          include: ["workflows", "wf.config.ts"],
        },
        null,
        2,
      ) + "\n",
    ".gitignore": `node_modules/
# Secrets: copy .env.example to .env and keep it out of git.
.env
# Records of the wf server (sessions, screenshots) and run reports, the shards' too (--report-dir wf-report-<shard>).
.wf/
wf-report/
wf-report-*/
`,
    "wf.config.ts": `import { defineConfig } from "@wf/cli";

// Settings of the wf command. Flags and environment variables (WF_APP_URL, WF_REPORTER, ...)
// override them, so CI can change them without editing this file.
// Leave serviceUrl unset to run on the embedded server (a local Chromium: \`npx wf install-browser\`).
export default defineConfig({
  // use: { baseURL: "http://localhost:3000" }, // your app: \`go to /login\` opens http://localhost:3000/login
  // projects: [{ name: "desktop" }, { name: "mobile", use: { ...devices["Pixel 7"] } }], // import { devices } from "@wf/cli"
  // serviceUrl: "http://127.0.0.1:8787", // a wf service started with \`wf serve\` (else an embedded one)
  testDir: "workflows", // \`npx wf run\` with no file runs every workflow in it
  // reporter: [["list"], ["junit", { outputFile: "wf-report/junit.xml" }]], // default: pretty for one, list for several
  // workers: 2, retries: 1,
  // trace: "on-first-retry", // Playwright traces in wf-report/ (default: retain-on-failure)
  // screenshot: "on", // a picture after every step in the report (default: only-on-failure, as Playwright Test)
  // reportDir: "wf-report", // the HTML report every run writes; \`npx wf show-report\` opens it
  // timeoutMs: 120_000,
});
`,
    ".env.example": `# Copy to .env (not committed). wf reads .env from the working directory.
# Your app's address (go to /login opens <url>/login); beats use.baseURL of wf.config.ts.
# WF_APP_URL=http://localhost:3000
# The wf service to run steps on; unset runs an embedded server with a local Chromium.
# WF_SERVICE_URL=http://127.0.0.1:8787
# WF_API_KEY=
# A Chromium of your own (else wf looks in the usual places; \`npx wf install-browser\` installs one).
# WF_CHROMIUM_PATH=/usr/bin/chromium
`,
    "pages/example.html": `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <title>Plans and prices</title>
  </head>
  <body>
    <h1>Plans and prices</h1>
    <p>A page the example workflow reads, shipped with the project so it runs offline.</p>
    <table>
      <caption>Plans</caption>
      <thead>
        <tr><th>Plan</th><th>Price</th><th>Seats</th></tr>
      </thead>
      <tbody>
        <tr><td>Starter</td><td>9</td><td>1</td></tr>
        <tr><td>Team</td><td>49</td><td>10</td></tr>
        <tr><td>Business</td><td>199</td><td>50</td></tr>
      </tbody>
    </table>
  </body>
</html>
`,
    "workflows/example.ts": `import { pathToFileURL } from "node:url";
import { act, ask, workflow } from "@wf/core";
import { z } from "zod";

/** One row of the page's table of plans: each field is a column, read into its type. */
const Plan = z.object({ plan: z.string(), price: z.number(), seats: z.number().int() });

/**
 * Reads the heading and the table of plans of a page: by default pages/example.html, which comes
 * with the project, so it runs offline (a relative path is read from the folder you run wf in).
 *
 *   npx wf run workflows/example.ts
 *   npx wf run workflows/example.ts --param url=https://example.com/pricing
 */
export default workflow(
  {
    name: "example",
    description: "Reads the heading and the table of plans of a page.",
    params: z.object({
      url: z.string().default("pages/example.html").describe("the page to read: a URL, or a file's path"),
    }),
    output: z.object({ title: z.string(), plans: z.array(Plan).min(1) }),
  },
  async ({ params }) => {
    const url = URL.canParse(params.url) ? params.url : pathToFileURL(params.url).href;
    await act(\`go to \${url}\`);
    const title = await ask("the main heading");
    const plans = await ask("the table of plans", z.array(Plan));
    return { title, plans };
  },
);
`,
  };
}
