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
 * Writes `package.json` (deps `@wf/core`, `@wf/cli`, `zod`), `tsconfig.json`,
 * `workflows/example.ts`, `.env.example` and `wf.config.ts`. Writes nothing if any of them exists.
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

function templates(name: string): Record<string, string> {
  return {
    "package.json":
      JSON.stringify(
        {
          name,
          private: true,
          type: "module",
          engines: { node: ">=20.19" },
          scripts: { start: "wf run workflows/example.ts", check: "wf check workflows/*.ts", plan: "wf plan workflows/example.ts" },
          dependencies: { "@wf/core": "^0.1.0", "@wf/cli": "^0.1.0", zod: "^4.1.12" },
        },
        null,
        2,
      ) + "\n",
    "tsconfig.json":
      JSON.stringify(
        {
          compilerOptions: {
            target: "ES2022",
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
    "wf.config.ts": `import { defineConfig } from "@wf/cli";

// Settings of the wf command. Flags override them; they override environment variables.
// Leave baseUrl unset to run on the embedded server (a local Chromium).
export default defineConfig({
  // baseUrl: "http://127.0.0.1:8787",
  reporter: "pretty",
  // timeoutMs: 120_000,
});
`,
    ".env.example": `# Copy to .env (not committed). wf reads .env from the working directory.
# The wf service to run steps on; unset runs an embedded server with a local Chromium.
# WF_BASE_URL=http://127.0.0.1:8787
# WF_API_KEY=
`,
    "workflows/example.ts": `import { act, ask, workflow } from "@wf/core";
import { z } from "zod";

/**
 * Opens a page and reads its title and links.
 * Run: npx wf run workflows/example.ts --param url=https://example.com
 */
export default workflow(
  {
    name: "example",
    description: "Reads the title and the links of a page.",
    params: z.object({ url: z.string().url().default("https://example.com") }),
    output: z.object({ title: z.string(), links: z.array(z.object({ text: z.string(), href: z.string() })) }),
  },
  async ({ params }) => {
    await act(\`go to \${params.url}\`);
    const title = await ask("the title of the page");
    const links = await ask("the links on the page", z.array(z.object({ text: z.string(), href: z.string() })));
    return { title, links };
  },
);
`,
  };
}
