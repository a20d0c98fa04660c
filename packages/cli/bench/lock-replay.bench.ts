/**
 * The action lock's gain: a 10-step free-form workflow run once with the model (recording the
 * lock), then replayed from the lock. Prints the run time and the tokens of each, and their ratio.
 *
 * The model is the scripted double of the tests (it answers at once, so the first run's time here
 * is the page views and the steps without a provider's latency: a real model adds its seconds per
 * call to the first run only). Chromium is the real one; each run starts its own embedded server.
 *
 *   pnpm --filter @wf/cli bench:lock        (or: node --import tsx packages/cli/bench/lock-replay.bench.ts)
 */
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { refFor, startModelDouble, pageOf } from "../../server/tests/helpers/model-double.js";
import { runWorkflowFile } from "../src/run.js";

const CLI_DIR = fileURLToPath(new URL("..", import.meta.url));
const STEPS = 10;

const page = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Preferences</title></head><body>
<h1>Preferences</h1>
${Array.from({ length: STEPS }, (_, i) => `<p>Setting ${i + 1} changes how the report ${i % 2 ? "is sorted" : "is grouped"}.</p><label><input type="checkbox" name="o${i + 1}"> Option ${i + 1}</label>`).join("\n")}
</body></html>`;

const flow = `import { act, workflow } from "@wf/core";
import { z } from "zod";
export default workflow({ name: "ten-free-form-steps", params: z.object({ url: z.string() }) }, async ({ params }) => {
  await act(\`go to \${params.url}\`);
${Array.from({ length: STEPS }, (_, i) => `  await act("turn on setting number ${i + 1} please");`).join("\n")}
});
`;

async function main(): Promise<void> {
  await mkdir(join(CLI_DIR, ".tmp"), { recursive: true });
  const dir = await mkdtemp(join(CLI_DIR, ".tmp", "bench-lock-"));
  const model = await startModelDouble((request) => {
    const n = /setting number (\d+)/.exec(pageOf(request))?.[1] ?? "1";
    return { content: { reason: `Option ${n} is setting ${n}.`, actions: [{ verb: "check", ref: refFor(request, `Option ${n}`, "checkbox"), value: null }] } };
  });
  try {
    await writeFile(join(dir, "page.html"), page);
    await writeFile(join(dir, "ten.ts"), flow);
    const sink = { write: () => true };
    const run = async (lock: "write" | "read") => {
      const before = model.requests.length;
      const { exitCode, record } = await runWorkflowFile({
        file: "ten.ts",
        cwd: dir,
        params: { url: `file://${join(dir, "page.html")}` },
        reporter: "json",
        lock,
        model: "bench-model",
        stdout: sink,
        stderr: sink,
        loadConfigFile: false,
        env: { ...process.env, OPENAI_BASE_URL: model.baseUrl, OPENAI_API_KEY: "sk-bench", CI: "" },
      });
      if (exitCode !== 0) throw new Error(`the ${lock} run failed: ${JSON.stringify(record.error)}`);
      const steps = record.steps.slice(1);
      return {
        ms: steps.reduce((n, s) => n + s.durationMs, 0),
        runMs: record.durationMs,
        tokens: record.usage?.totalTokens ?? 0,
        calls: model.requests.length - before,
        replayed: steps.filter((s) => s.replayed).length,
      };
    };
    const first = await run("write");
    const lock = JSON.parse(await readFile(join(dir, "ten.wf.lock.json"), "utf8")) as { entries: unknown[] };
    const replays = [await run("read"), await run("read"), await run("read")];
    const replay = replays.sort((a, b) => a.ms - b.ms)[1]!;
    const row = (name: string, r: typeof first) =>
      `${name.padEnd(22)} ${String(r.ms).padStart(7)} ms (run ${r.runMs} ms)  ${String(r.tokens).padStart(7)} tokens  ${String(r.calls).padStart(2)} model calls  ${r.replayed} replayed`;
    console.log(`${STEPS} free-form ACT steps (+1 go to), model double, ${new Date().toISOString().slice(0, 10)}; lock entries written: ${lock.entries.length}`);
    console.log(row("first run (records)", first));
    console.log(row("replay (median of 3)", replay));
    console.log(`replay ÷ first run: time ${(replay.ms / first.ms).toFixed(2)}, tokens ${first.tokens ? (replay.tokens / first.tokens).toFixed(2) : "n/a"}`);
  } finally {
    await model.close();
    await rm(dir, { recursive: true, force: true });
  }
}

await main();
