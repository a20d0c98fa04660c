/** `wf init [dir]`: writes a ready wf project. */
import { relative } from "node:path";
import { EXIT } from "../errors.js";
import { defineCommand } from "./_types.js";

export const initCommand = defineCommand({
  command: "init [dir]",
  describe: "Write a ready project: package.json, tsconfig, .gitignore, wf.config.ts, .env.example, an example workflow and the page it reads",
  builder: (yargs) =>
    yargs
      .positional("dir", { type: "string", default: ".", describe: "The project folder (created if missing)" })
      .example("$0 init my-workflows", "Create a project in ./my-workflows")
      .epilog("Never overwrites a file: exits 2 and writes nothing if one exists."),
  handler: async (args, context) => {
    const { initProject } = await import("../init.js");
    const result = await initProject({ dir: args.dir, cwd: context.cwd });
    const where = relative(context.cwd, result.dir) || ".";
    context.stdout.write(
      `Created a wf project in ${where}:\n${result.files.map((f) => `  ${f}`).join("\n")}\nNext:\n` +
        (where === "." ? "" : `  cd ${where}\n`) +
        `  npm install\n` +
        `  npx wf install-browser        # a Chromium for the embedded server, if this machine has none\n` +
        `  npx wf run workflows/example.ts\n` +
        `  npx tsc --noEmit && npx wf check workflows/*.ts\n`,
    );
    return EXIT.ok;
  },
});
