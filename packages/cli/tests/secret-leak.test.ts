/**
 * The leak test: one workflow types secrets into a password field, a plain text field, a GET form
 * (the secret goes into the next URL, and the next page echoes it into a field and a link) and a
 * field the model fills (through the model double, with a placeholder), spawned as a user runs it:
 * secrets from the environment (`--param-env`), traces on, screenshots on, the lock written, the
 * embedded server's log at debug level and its records on disk. Then every artifact is searched
 * for every encoding of every secret, and the screenshots are read pixel by pixel: each field a
 * secret was typed into, and the password field, is painted with the mask colour.
 */
import { execFileSync } from "node:child_process";
import { copyFile, mkdir, readdir, readFile } from "node:fs/promises";
import { join, relative } from "node:path";
import { chromium } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { askReply, refFor, startModelDouble, type ModelDouble } from "../../server/tests/helpers/model-double.js";
import { decodePng } from "./_png.js";
import { FIXTURES, runWf, scratchDir, startPages, type WfProcess } from "./_helpers.js";

// Spaces, slashes, `&`, `+`, `%`, `=`, a single quote and non-ASCII: each takes another form in a URL, in JSON, in HTML.
const SECRETS = {
  password: "Hunter 2/pä&ss'wd",
  code: "RC-9x/7 &q=1 ü+z",
  voucher: "V 42/ß&z+=% end",
  note: "call me ø/at & 555",
};

/** Every form a value takes on its way through a page, a server and a serializer (written here, not taken from the code under test). */
function encodings(secret: string): string[] {
  const b64 = Buffer.from(secret, "utf8").toString("base64");
  const form = new URLSearchParams({ q: secret }).toString().slice(2);
  const lowerHex = (s: string) => s.replace(/%[0-9A-F]{2}/g, (h) => h.toLowerCase());
  const forms = [
    secret,
    JSON.stringify(secret).slice(1, -1),
    JSON.stringify(JSON.stringify(secret)).slice(1, -1),
    encodeURIComponent(secret),
    lowerHex(encodeURIComponent(secret)),
    encodeURIComponent(secret).replace(/%20/g, "+"),
    form,
    lowerHex(form),
    encodeURI(secret),
    secret.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;").replace(/'/g, "&#39;"),
    secret.replace(/&/g, "&amp;").replace(/'/g, "&#x27;"),
    b64,
    b64.replace(/=+$/, ""),
    b64.replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, ""),
    Buffer.from(`user:${secret}`, "utf8").toString("base64"),
  ];
  return [...new Set(forms)];
}

const NEEDLES = Object.entries(SECRETS).flatMap(([name, secret]) => encodings(secret).map((form) => ({ name, form, bytes: Buffer.from(form, "utf8") })));

/** The encodings of secrets found in `data`, as "name: form". */
function leaks(data: Buffer | string): string[] {
  const buffer = typeof data === "string" ? Buffer.from(data, "utf8") : data;
  return NEEDLES.filter((n) => buffer.includes(n.bytes)).map((n) => `${n.name}: ${JSON.stringify(n.form)}`);
}

async function filesUnder(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) out.push(join(entry.parentPath, entry.name));
  }
  return out;
}

describe("secrets never leave the run (spawned wf run)", { timeout: 240_000 }, () => {
  let pages: Awaited<ReturnType<typeof startPages>>;
  let scratch: Awaited<ReturnType<typeof scratchDir>>;
  let model: ModelDouble;
  let result: WfProcess;
  let reportDir: string;
  let dataDir: string;
  let lockPath: string;

  beforeAll(async () => {
    pages = await startPages();
    scratch = await scratchDir();
    reportDir = join(scratch.dir, "report");
    dataDir = join(scratch.dir, "data");
    const flow = join(scratch.dir, "secrets.ts");
    lockPath = join(scratch.dir, "secrets.wf.lock.json");
    await copyFile(join(FIXTURES, "secrets.ts"), flow);
    model = await startModelDouble((request) => {
      if (request.body.response_format?.json_schema?.name === "wf_act") {
        return { content: { reason: "The note box takes the note.", actions: [{ verb: "fill", ref: refFor(request, "Note to support", "textbox"), value: "{{secret1}}" }] } };
      }
      return { content: askReply(request, { value: request.raw.includes("Voucher found") ? "Voucher found." : "Saved." }) };
    });
    result = await runWf(
      [
        "run", flow,
        "--param", `url=${pages.url}`,
        "--param-env", "password=SHOP_PASSWORD", "--param-env", "code=SHOP_CODE", "--param-env", "voucher=SHOP_VOUCHER", "--param-env", "note=SHOP_NOTE",
        "--trace", "on", "--screenshot", "on", "--lock", "write", "--model", "test-model", "--reporter", "json", "--report-dir", reportDir,
      ],
      {
        cwd: scratch.dir,
        env: {
          SHOP_PASSWORD: SECRETS.password, SHOP_CODE: SECRETS.code, SHOP_VOUCHER: SECRETS.voucher, SHOP_NOTE: SECRETS.note,
          OPENAI_BASE_URL: model.baseUrl, OPENAI_API_KEY: "sk-test-leak", WF_DATA_DIR: dataDir, WF_LOG_LEVEL: "debug", CI: "",
        },
        timeoutMs: 200_000,
      },
    );
  });
  afterAll(async () => {
    await pages?.close();
    await model?.close();
    await scratch?.remove();
  });

  it("runs, every secret typed where it belongs (the model filled the note through a placeholder)", () => {
    expect(result.code, result.stderr.slice(-3000)).toBe(0);
    const record = JSON.parse(result.stdout);
    expect(record.status).toBe("succeeded");
    expect(record.output).toEqual({ saved: "Saved.", found: "Voucher found." });
    expect(record.steps[3]).toMatchObject({ interpreter: "model" });
    // The log of the embedded server (WF_LOG_LEVEL=debug) went to stderr.
    expect(result.stderr).toContain('"msg":"incoming request"');
  });

  it("stdout, stderr (the server's debug log) and every model request hold no encoding of any secret", () => {
    expect(leaks(result.stdout)).toEqual([]);
    expect(leaks(result.stderr)).toEqual([]);
    expect(model.requests.length).toBeGreaterThanOrEqual(3);
    for (const request of model.requests) expect(leaks(request.raw)).toEqual([]);
    // The model saw the page after the GET form: its URL, with the secret taken out.
    expect(model.requests.some((r) => r.raw.includes("lookup.html?voucher=[secret]"))).toBe(true);
  });

  it("the report folder (every trace unpacked), the lock and the data folder (database and WAL) hold no encoding of any secret", async () => {
    const found: string[] = [];
    const traces: string[] = [];
    for (const file of await filesUnder(reportDir)) {
      for (const leak of leaks(await readFile(file))) found.push(`${relative(scratch.dir, file)}: ${leak}`);
      if (file.endsWith(".zip")) traces.push(file);
    }
    expect(traces.length).toBe(1);
    const unpacked = join(scratch.dir, "trace");
    await mkdir(unpacked, { recursive: true });
    // unzip checks every entry's CRC: the scrubbed zip is a valid zip.
    execFileSync("unzip", ["-q", "-o", traces[0]!, "-d", unpacked]);
    const entries = await filesUnder(unpacked);
    for (const file of entries) for (const leak of leaks(await readFile(file))) found.push(`trace ${relative(unpacked, file)}: ${leak}`);
    for (const leak of leaks(await readFile(lockPath))) found.push(`lock: ${leak}`);
    const dataFiles = await filesUnder(dataDir);
    expect(dataFiles.some((f) => f.includes("pg_wal"))).toBe(true);
    for (const file of dataFiles) for (const leak of leaks(await readFile(file))) found.push(`${relative(scratch.dir, file)}: ${leak}`);
    expect(found).toEqual([]);

    // The trace still reads: every line is JSON, the steps' actions are there, masked.
    const traceText = await readFile(join(unpacked, "trace.trace"), "utf8");
    const events = traceText.split("\n").filter((l) => l.trim()).map((l) => JSON.parse(l) as Record<string, any>);
    const fills = events.filter((e) => e.type === "before" && e.method === "fill");
    expect(fills.length).toBeGreaterThanOrEqual(3);
    expect(fills.every((e) => e.params?.value === "[secret]")).toBe(true);
    const networkText = await readFile(join(unpacked, "trace.network"), "utf8");
    for (const line of networkText.split("\n").filter((l) => l.trim())) JSON.parse(line);
    // Every file a line names is in the zip (renamed resources were followed, dropped frames are gone).
    const names = new Set(entries.map((f) => relative(unpacked, f)));
    const referenced = [
      ...[...(traceText + networkText).matchAll(/"_?sha1":"([^"]+)"/g)].map((m) => `resources/${m[1]!}`),
      ...[...traceText.matchAll(/"file":"([^"]+)"/g)].map((m) => m[1]!),
    ];
    expect(referenced.length).toBeGreaterThan(0);
    expect(referenced.filter((r) => !names.has(r))).toEqual([]);
    // The screencast keeps no frame from the first typed secret on (a secret field stays on the page to the end).
    const firstFill = fills[0]!.startTime as number;
    const frames = events.filter((e) => e.type === "screencast-frame");
    expect(frames.length).toBeGreaterThan(0);
    expect(frames.filter((e) => e.timestamp > firstFill)).toEqual([]);
  });

  it("every screenshot paints the mask over the password field and over each field a secret was typed into", async () => {
    // The fields' boxes, from the same pages at the same viewport.
    const browser = await chromium.launch({ executablePath: process.env.WF_CHROMIUM_PATH ?? "/usr/bin/chromium" });
    const boxes: Record<string, { x: number; y: number; width: number; height: number }> = {};
    try {
      const page = await browser.newPage({ viewport: { width: 1280, height: 720 } });
      await page.goto(`${pages.url}/account.html`);
      for (const id of ["pw", "code", "note"]) boxes[id] = (await page.locator(`#${id}`).boundingBox())!;
      // The voucher is typed after "Save" wrote its status line above the form.
      await page.locator("#status").evaluate((el) => (el.textContent = "Saved."));
      boxes.voucher = (await page.locator('input[name="voucher"]').boundingBox())!;
      await page.goto(`${pages.url}/lookup.html`);
      boxes.again = (await page.locator("#again").boundingBox())!;
    } finally {
      await browser.close();
    }
    const folder = (await readdir(reportDir, { withFileTypes: true })).find((e) => e.isDirectory())!.name;
    const shot = async (index: number) => decodePng(await readFile(join(reportDir, folder, `step-${index}.png`)));
    const masked = (png: ReturnType<typeof decodePng>, box: { x: number; y: number; width: number; height: number }) => {
      let magenta = 0;
      let total = 0;
      for (let y = Math.ceil(box.y + 2); y < box.y + box.height - 2; y++) {
        for (let x = Math.ceil(box.x + 2); x < box.x + box.width - 2; x++) {
          const i = (y * png.width + x) * 4;
          total += 1;
          if (png.rgba[i]! > 240 && png.rgba[i + 1]! < 15 && png.rgba[i + 2]! > 240) magenta += 1;
        }
      }
      return magenta / total;
    };
    // Steps (from 1): 1 go to, 2 password, 3 code, 4 note (model), 5 save, 6 ask, 7 voucher, 8 look up, 9 ask.
    const expected: Array<[number, string[]]> = [
      [1, ["pw"]],
      [2, ["pw"]],
      [3, ["pw", "code"]],
      [4, ["pw", "code", "note"]],
      [5, ["pw", "code", "note"]],
      [7, ["pw", "code", "note", "voucher"]],
      [8, ["again"]],
      [9, ["again"]],
    ];
    for (const [index, fields] of expected) {
      const png = await shot(index);
      for (const field of fields) expect(masked(png, boxes[field]!), `step ${index}, field ${field}`).toBe(1);
    }
    // A field no secret was typed into (yet) is not painted.
    expect(masked(await shot(2), boxes.code!)).toBe(0);
    expect(masked(await shot(6), boxes.voucher!)).toBe(0);
  });
});
