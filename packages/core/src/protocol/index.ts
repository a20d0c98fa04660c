/**
 * The wire protocol of the wf browser-automation service, defined once as zod schemas.
 *
 * Source of the contract: `shared/spec/service-interface.md` (the three POST operations) and
 * `shared/spec/public-samples.md` (the status routes and the leniencies the samples need).
 * Everything the spec leaves open (status shapes, errors, closing and cancelling sessions) is
 * this project's decision, written down in `docs/protocol.md`.
 *
 * The server validates requests with these schemas and generates its OpenAPI document from them;
 * the runtime validates responses with them. Types are inferred from the schemas, never written
 * twice.
 */
import { z } from "zod";

export * from "./problems.js";

/** The path prefix of every route of the service (spec §9: no version in the path). */
export const API_PREFIX = "/apis/request";

/** Paths of every route, relative to the base URL. `{id}` placeholders follow OpenAPI style. */
export const ROUTES = {
  /** `GET`, no key needed. */
  health: `${API_PREFIX}/health`,
  /** `GET`: the OpenAPI 3.1 document of the service. */
  openapi: `${API_PREFIX}/openapi.json`,
  /** `POST` (spec §4.1): create a step-mode session. */
  stepCreate: `${API_PREFIX}/workflow/step/create`,
  /** `POST` (spec §4.3): run one step in session `{id}` (the `workflowId` that create returned). */
  stepRun: `${API_PREFIX}/workflow/step/run/{id}`,
  /** `GET` (public samples): status of step `{stepId}`; `?waitMs=` long-polls until it finishes. */
  stepStatus: `${API_PREFIX}/workflow/step/status/{stepId}`,
  /** `POST` (ours): close step session `{id}`, freeing its browser context. */
  stepClose: `${API_PREFIX}/workflow/step/close/{id}`,
  /** `GET` (public samples): status of session `{id}`, step-mode or stored run. */
  sessionStatus: `${API_PREFIX}/workflow/status/{id}`,
  /** `POST` (spec §4.2): run a stored workflow by id. */
  workflowRun: `${API_PREFIX}/workflow/run`,
  /** `POST` (public samples): the same operation as {@link ROUTES.workflowRun}. */
  workflowRunAlias: `${API_PREFIX}/run/workflows`,
  /** `POST` (ours): cancel the running stored-workflow session `{id}`. */
  sessionCancel: `${API_PREFIX}/workflow/cancel/{id}`,
  /** `GET` (ours): the stored workflows the service offers. */
  workflowList: `${API_PREFIX}/workflows`,
  /** `GET` (ours): the HTML debugger / preview page of session `{id}`; `?token=` is its session token. */
  sessionView: `${API_PREFIX}/workflow/view/{id}`,
  /**
   * `GET` (ours): the Playwright trace (`trace.zip`) of session `{id}`, once it ended, when it was
   * created with `trace: true`; the API key or `?token=` (the session token).
   */
  sessionTrace: `${API_PREFIX}/workflow/view/{id}/trace`,
  /**
   * `GET` (ours): a file a step of session `{id}` downloaded (`StepStatus.downloads[].downloadId`),
   * kept with the session's records; the API key or `?token=` (the session token).
   */
  sessionDownload: `${API_PREFIX}/workflow/view/{id}/downloads/{downloadId}`,
  /** `GET` (ours): the service's metrics in the Prometheus text format; the API key or the metrics token. */
  metrics: `${API_PREFIX}/metrics`,
} as const;

/** Fills the `{name}` placeholders of a route path, URL-encoding each value. */
export function routePath(route: string, params: Record<string, string> = {}): string {
  let parts = routeParts.get(route);
  if (!parts) {
    parts = route.split(/\{(\w+)\}/);
    if (routeParts.size >= 256) routeParts.clear();
    routeParts.set(route, parts);
  }
  // parts: literal, name, literal, name, …, literal.
  let path = parts[0]!;
  for (let i = 1; i < parts.length; i += 2) {
    const value = params[parts[i]!];
    if (value === undefined) throw new Error(`routePath: missing value for {${parts[i]}} in ${route}`);
    path += encodeURIComponent(value) + parts[i + 1]!;
  }
  return path;
}

/** Templates already split at their `{name}`s (a client builds two paths per step from the same few). */
const routeParts = new Map<string, string[]>();

/** Header that carries the API key (spec §5.1). Headers are case-insensitive. */
export const API_KEY_HEADER = "api-key";
/** Header that makes a step run safe to retry: the same key in the same session never runs twice. */
export const IDEMPOTENCY_KEY_HEADER = "idempotency-key";

/** Longest wait a client may ask of a long-poll (`?waitMs=`), in ms. Larger values are capped. */
export const MAX_LONG_POLL_MS = 30_000;

// ---------------------------------------------------------------------------------------------
// Step-mode sessions (spec §2.1, §4.1)
// ---------------------------------------------------------------------------------------------

/** `browserMode` values (spec §4.1 lists `REMOTE` only). */
export const BrowserMode = z.enum(["REMOTE"]);

/**
 * Which steps of a session get a screenshot after them (ours; Playwright Test's `screenshot`
 * option and its values): `on` every step, `only-on-failure` the steps that failed (the default,
 * as Playwright Test's), `off` none. A session whose debugger page is open gets one after every step whatever the mode.
 */
export const SCREENSHOT_MODES = ["on", "only-on-failure", "off"] as const;
export const ScreenshotMode = z.enum(SCREENSHOT_MODES);
export type ScreenshotMode = z.infer<typeof ScreenshotMode>;

/**
 * What the browser does with a JavaScript dialog (`alert`, `confirm`, `prompt`, `beforeunload`) a
 * page opens (ours): `accept` (the default) clicks OK (a prompt keeps its default text), `dismiss`
 * clicks Cancel (a `beforeunload` is still accepted: a step that leaves the page means to leave
 * it), `fail` dismisses every dialog, `beforeunload` too, and fails the step with
 * `WF_DIALOG_OPENED`. Every dialog is listed in the step's `dialogs`.
 */
export const DIALOG_RULES = ["accept", "dismiss", "fail"] as const;
export const DialogRule = z.enum(DIALOG_RULES);
export type DialogRule = z.infer<typeof DialogRule>;
/** Whether `tz` is an IANA time zone this runtime knows (`Europe/Paris`). */
function isTimeZone(tz: string): boolean {
  try {
    new Intl.DateTimeFormat("en", { timeZone: tz });
    return true;
  } catch {
    return false;
  }
}

/** Whether `locale` is a BCP 47 language tag (`en-GB`, `de-DE`). */
function isLocale(locale: string): boolean {
  try {
    return Intl.getCanonicalLocales(locale).length === 1;
  } catch {
    return false;
  }
}

const Size = (what: string) =>
  z
    .object({ width: z.number().int().min(1).max(10_000), height: z.number().int().min(1).max(10_000) })
    .strict()
    .describe(`${what}, in CSS pixels: { width, height }.`);

/**
 * `context` of a session create (ours): how the session's browser context is made, in Playwright's
 * names and meanings (its `use` options and device descriptors: `devices["Pixel 7"]`). `baseURL` is
 * what a relative address in `go to /login` resolves against, as `page.goto("/login")` does.
 */
export const SessionContextOptions = z
  .object({
    baseURL: z
      .url({ protocol: /^(?:https?|file)$/ })
      .max(2_048)
      .optional()
      .describe("What a relative address resolves against (`go to /login`, `go to ?page=2`), as Playwright's baseURL: new URL(address, baseURL). Unset: the current page's address."),
    viewport: Size("The page's size (Playwright's viewport)").optional(),
    screen: Size("The screen's size window.screen reports (Playwright's screen)").optional(),
    deviceScaleFactor: z.number().positive().max(10).optional().describe("Device pixels per CSS pixel (2 for a retina screen)."),
    isMobile: z.boolean().optional().describe("Take the meta viewport tag into account and enable touch events, as a phone does."),
    hasTouch: z.boolean().optional().describe("The page supports touch events."),
    userAgent: z.string().min(1).max(1_024).optional().describe("The User-Agent the browser sends and navigator.userAgent says."),
    locale: z.string().max(64).refine(isLocale, "must be a BCP 47 language tag like en-GB").optional().describe("The browser's locale (navigator.language, Accept-Language, number and date formats), e.g. en-GB."),
    timezoneId: z.string().max(64).refine(isTimeZone, "must be an IANA time zone like Europe/Paris").optional().describe("The browser's time zone, e.g. Europe/Paris."),
    colorScheme: z.enum(["light", "dark", "no-preference"]).optional().describe("The prefers-color-scheme media feature."),
    reducedMotion: z.enum(["reduce", "no-preference"]).optional().describe("The prefers-reduced-motion media feature."),
    extraHTTPHeaders: z
      .record(z.string().min(1).max(256), z.string().max(8_192))
      .refine((headers) => Object.keys(headers).length <= 50, "must hold at most 50 headers")
      .optional()
      .describe("Headers sent with every request of the session."),
    javaScriptEnabled: z.boolean().optional().describe("Run the pages' scripts. Default true."),
  })
  .strict()
  .describe("How the session's browser context is made, in Playwright's names (its use options and device descriptors).");
export type SessionContextOptions = z.infer<typeof SessionContextOptions>;

/** Body of `POST /workflow/step/create`. `browserMode` is optional, default `REMOTE` (public samples). */
export const CreateSessionRequest = z
  .object({
    browserMode: BrowserMode.default("REMOTE").describe("Where the browser runs. Only REMOTE is offered."),
    trace: z
      .boolean()
      .optional()
      .describe(
        "Record a Playwright trace of the session (screenshots and DOM snapshots), saved when the session ends and served by GET /workflow/view/{id}/trace. Default false.",
      ),
    screenshot: ScreenshotMode.optional().describe(
      "Which steps get a screenshot after them, in Playwright Test's words: on (every step), only-on-failure (the failed steps; the default, as Playwright Test), off (none). While the session's debugger page is open, every step gets one.",
    ),
    dialogs: DialogRule.optional().describe(
      "What happens to a JavaScript dialog (alert, confirm, prompt, beforeunload) a page opens: accept (the default: OK, a prompt's default text), dismiss (Cancel; beforeunload still accepted), fail (dismissed, and the step fails WF_DIALOG_OPENED). Each dialog is listed in its step's `dialogs`.",
    ),
    context: SessionContextOptions.optional(),
  })
  .describe("Create a step-mode session.");
export type CreateSessionRequest = z.input<typeof CreateSessionRequest>;

/** Body of the 200 answer of `POST /workflow/step/create` (spec §2.1). */
export const CreateSessionResponse = z.object({
  workflowId: z.string().describe("Identifier of the session (hex). The {id} of the step-run route."),
  sessionToken: z.string().describe("Token scoped to this session; opens its debugger page without the API key."),
  debuggerUrl: z.string().describe("Address of the session's live debugger page."),
});
export type CreateSessionResponse = z.infer<typeof CreateSessionResponse>;

// ---------------------------------------------------------------------------------------------
// Steps (spec §2.2, §4.3)
// ---------------------------------------------------------------------------------------------

/** `type` of a step: an action or a question (spec §4.3). */
export const StepType = z.enum(["ACT", "ASK"]);
export type StepType = z.infer<typeof StepType>;

/**
 * The structured-output form of an ASK schema, as `toResponseFormat()` builds it:
 * `{ type: "json_schema", json_schema: { name, strict: true, schema } }` (OpenAI's `response_format`).
 */
export const ResponseFormat = z.object({
  type: z.literal("json_schema"),
  json_schema: z.object({
    name: z.string(),
    description: z.string().optional(),
    strict: z.boolean().optional(),
    schema: z.record(z.string(), z.unknown()),
  }),
});
export type ResponseFormat = z.infer<typeof ResponseFormat>;

/**
 * `schema` of a step run. The spec calls it "a schema in the OpenAI-compatible structured-output
 * form"; the server accepts the whole response format, its inner `json_schema` object
 * (`{ name, strict, schema }`), or a bare JSON Schema. `{}` or absent means no structured answer.
 * Normalise with {@link normalizeStepSchema}. At most {@link MAX_STEP_SCHEMA_DEPTH} JSON levels deep.
 */
export const StepSchema = z.record(z.string(), z.unknown()).superRefine((schema, ctx) => {
  const depth = jsonDepth(schema, MAX_STEP_SCHEMA_DEPTH + 1);
  if (depth > MAX_STEP_SCHEMA_DEPTH) {
    ctx.addIssue({
      code: "custom",
      message:
        `is nested more than ${MAX_STEP_SCHEMA_DEPTH} JSON levels deep; a structured-output schema can't be: OpenAI's strict mode ` +
        `allows 10 levels of objects and arrays. Flatten the schema.`,
    });
  }
});

/**
 * Deepest JSON nesting a step's `schema` may have (objects and arrays, the root = 1). OpenAI's
 * strict structured outputs allow 10 levels of objects and arrays (`MAX_NESTING_DEPTH` of the
 * schema translator); each takes at most about 4 JSON levels (`properties`, a name, `anyOf`, a
 * branch), plus the response-format wrapper and `$defs`, so 64 holds every schema that can be
 * used while it keeps a deeper body (a fuzzed 2,000-level one) from reaching recursive code.
 */
export const MAX_STEP_SCHEMA_DEPTH = 64;

/**
 * Nesting depth of a JSON value (a scalar is 0, `{}` or `[]` is 1), without recursion; stops
 * counting at `stopAt`.
 */
export function jsonDepth(value: unknown, stopAt = Number.POSITIVE_INFINITY): number {
  let deepest = 0;
  const stack: Array<[unknown, number]> = [[value, 1]];
  while (stack.length > 0) {
    const [node, depth] = stack.pop()!;
    if (node === null || typeof node !== "object") continue;
    deepest = Math.max(deepest, depth);
    if (deepest >= stopAt) return deepest;
    for (const child of Array.isArray(node) ? node : Object.values(node)) if (child !== null && typeof child === "object") stack.push([child, depth + 1]);
  }
  return deepest;
}

/** The identity an element had when a step was recorded: its ARIA role and accessible name. */
export const RecordedElement = z.object({
  role: z.string().min(1).max(100).describe("ARIA role, e.g. button."),
  name: z.string().max(4000).describe("Accessible name, e.g. Sign in."),
  locator: z
    .string()
    .max(4000)
    .optional()
    .describe(
      "The Playwright locator recorded for it (as locator.normalize() writes it), e.g. getByTestId('submit'); a replay uses it when the instruction names several elements or another one.",
    ),
  primary: z
    .literal("locator")
    .optional()
    .describe("`locator` when no grammar instruction named the element alone where it was recorded: a replay finds it by `locator` first, then by the instruction."),
});
export type RecordedElement = z.infer<typeof RecordedElement>;

/** One action of a replayed ACT: a grammar instruction and the element it must act on. */
export const ReplayAction = z.object({
  instruction: z.string().min(1).max(4000).describe("One grammar instruction, values filled in, e.g. 'click the \"Sign in\" button'."),
  element: RecordedElement.optional().describe("The element the instruction acted on when recorded; replay refuses any other."),
});
export type ReplayAction = z.infer<typeof ReplayAction>;

/** How a read recipe turns a page text into a value: `text` (whitespace trimmed and folded) or `number` (read as the page writes it: `1,234.50`, `$42`). */
export const RecipeTransform = z.enum(["text", "number"]);
export type RecipeTransform = z.infer<typeof RecipeTransform>;

/** A table a read recipe reads: the one whose header row holds every header named (and its caption, when one is recorded). */
export const RecipeTable = z.object({
  headers: z.array(z.string().max(400)).min(1).max(50).describe("Header texts the table must have (as the page writes them, whitespace folded), e.g. [\"Name\", \"Price\"]."),
  caption: z.string().max(400).optional().describe("The table's caption or heading, when it had one where it was recorded."),
});
export type RecipeTable = z.infer<typeof RecipeTable>;

/** A condition on one cell of a row, by its column's header: the rows a question selected. */
export const RecipeCondition = z.object({
  header: z.string().max(400),
  equals: z.string().max(4000).optional().describe("The cell's text is this (whitespace folded, case as written)."),
  in: z.array(z.string().max(4000)).max(200).optional().describe("The cell's text is one of these."),
  contains: z.string().min(1).max(4000).optional().describe("The cell's text holds this text (whitespace folded, case aside), e.g. `on a`."),
  gt: z.number().optional().describe("The cell reads as a number (as the page writes it: `$1,299.00` → 1299) greater than this. A cell that is no number does not meet it."),
  gte: z.number().optional().describe("The cell reads as a number greater than or equal to this."),
  lt: z.number().optional().describe("The cell reads as a number less than this."),
  lte: z.number().optional().describe("The cell reads as a number less than or equal to this."),
});
export type RecipeCondition = z.infer<typeof RecipeCondition>;

/** The text between the values of a cell or label that holds several (`split`), e.g. `,` for "a, b, c". */
export const RecipeSplit = z.string().min(1).max(10);

/** A column of a table, read into one field. */
export const RecipeColumn = z.object({
  header: z.string().max(400),
  as: RecipeTransform,
  split: RecipeSplit.optional().describe("The cell holds several values separated by this text (`a, b, c` with `,`): the field is an array of the pieces, each trimmed and read `as`, empty ones left out."),
});
export type RecipeColumn = z.infer<typeof RecipeColumn>;

/** An element a read recipe reads the text of, by ARIA role and its name or heading level. */
export const RecipeElement = z.object({
  role: z.enum(["heading", "alert", "status", "dialog"]).describe("`heading` (h1–h6, role=heading), `alert` (role=alert), `status` (role=status), `dialog` (an open dialog)."),
  level: z.number().int().min(1).max(6).optional().describe("With `heading`: its level; the page must have exactly one heading of it (its text is the value)."),
  name: z.string().max(400).optional().describe("With `alert`, `status`, `dialog`: its accessible name or title; absent when it had none (then it must be the only one of its role)."),
});
export type RecipeElement = z.infer<typeof RecipeElement>;

/**
 * One part of a read recipe: where one value of the answer (at `path`, a JSON Pointer into the
 * step's answer) comes from on the page. Exactly one of `label`, `table`, `list`, `element`, `section`.
 */
export const RecipePart = z.object({
  path: z.string().max(400).describe("JSON Pointer of the value in the step's answer, e.g. /total, /value ('' for the whole answer)."),
  label: z.string().max(400).optional().describe("A labelled value: the text beside this label (a label and its field, dt/dd, a th/td row, `Label: value`)."),
  table: RecipeTable.optional().describe("Rows of a table, in page order, each an object (`columns`) or one cell (`column`)."),
  where: z.array(RecipeCondition).max(10).optional().describe("With `table`: only the rows whose cells meet every condition."),
  columns: z.record(z.string(), RecipeColumn).optional().describe("With `table`: each property of a row's object, from the cell under that header."),
  column: RecipeColumn.optional().describe("With `table`: one cell of each row (an array of values), or of the one row selected (`single`)."),
  single: z.boolean().optional().describe("With `table`: exactly one row is selected and its value is the part's value (not an array)."),
  list: z.object({ context: z.string().max(400).describe("The heading or label the list lies under ('' for none).") }).optional().describe("The items of a list (their text), in page order."),
  element: RecipeElement.optional().describe("The text of one element: the page's one h1, an alert's message, an open dialog's text."),
  section: z.string().max(400).optional().describe("The text under the heading with this text, up to the next heading of its level or above."),
  as: RecipeTransform.optional().describe("With `label`, `list`, `element` or `section`: how the text becomes the value."),
  split: RecipeSplit.optional().describe("With `label`: the value holds several separated by this text; the part's value is the array of the pieces, each read `as`."),
});
export type RecipePart = z.infer<typeof RecipePart>;

/**
 * A read recipe: how to produce an ASK's answer from the page with no model, derived from a model's
 * grounded answer and kept only when it reproduced that answer exactly on the page it was recorded
 * on (docs/decisions/0056-read-recipes.md). A replay runs it on the page as it is now: the data may
 * have changed, the structure it names must not.
 */
export const ReadRecipe = z.object({
  parts: z.array(RecipePart).min(1).max(50),
});
export type ReadRecipe = z.infer<typeof ReadRecipe>;

/**
 * A check recipe: how a `check()` the model decided is evaluated again with no model, derived from
 * the model's verdict and the page text it quoted as evidence, and kept only when it gave the same
 * verdict on the page it was recorded on (docs/decisions/0067-check-recipes.md). The element is
 * found by its recorded locator (it must still be one element of the recorded role, else the recipe
 * is stale); the statement holds when its text (whitespace folded, case, quotes and dashes aside)
 * `equals` or `contains` the recorded text.
 */
export const CheckRecipe = z.object({
  element: z
    .object({
      role: z.string().min(1).max(100).describe("The element's ARIA role where it was recorded (`generic` for a plain element)."),
      name: z.string().max(1000).describe("Its accessible name where it was recorded (for messages; not matched: it may be its own text)."),
      locator: z.string().min(1).max(2000).describe("A Playwright locator that found exactly it, by position or id, never by the text the condition reads, e.g. `locator('#orders > div:nth-of-type(2)')`."),
    })
    .describe("The element whose text the statement is about."),
  equals: z.string().min(1).max(1000).optional().describe("The statement holds when the element's whole text is this."),
  contains: z.string().min(1).max(1000).optional().describe("The statement holds when the element's text contains this."),
});
export type CheckRecipe = z.infer<typeof CheckRecipe>;

/** Most bytes the files of one step (`files`) may hold together, before base64: 10 MiB. More is a 413 `WF_UPLOAD_TOO_LARGE`. */
export const MAX_STEP_UPLOAD_BYTES = 10 * 1024 * 1024;

/**
 * A file a step brings with it (what a client that does not share the service's disk sends for
 * `upload "<path>" to "<field>"`): the service writes the bytes to a folder of the session and
 * uploads from there when the instruction names `path`.
 */
export const StepFile = z.object({
  path: z.string().min(1).max(4000).describe("The path exactly as the instruction names it, e.g. fixtures/receipt.pdf."),
  name: z
    .string()
    .min(1)
    .max(255)
    .refine((n) => !/[/\\\0]/.test(n) && n !== "." && n !== "..", "must be a file name, without / or \\")
    .describe("The file name the page sees, e.g. receipt.pdf."),
  mimeType: z.string().max(255).optional().describe("The file's media type, e.g. application/pdf; guessed from the name by the browser when absent."),
  contentBase64: z
    .string()
    .max(Math.ceil(MAX_STEP_UPLOAD_BYTES / 3) * 4)
    .describe("The file's bytes, base64."),
});
export type StepFile = z.infer<typeof StepFile>;

/** How long a check retries when its request gives no `check.timeoutMs`, in ms (Playwright's `expect` default). */
export const DEFAULT_CHECK_TIMEOUT_MS = 5_000;

/**
 * `check` of a step run (ours): the ASK is an assertion. `step` is a statement about the page
 * (`the page shows "Saved"`); the service evaluates it again and again until it holds or
 * `timeoutMs` has passed, and answers with a {@link CheckAnswer} or fails `WF_CHECK_FAILED`.
 */
export const StepCheck = z
  .object({
    timeoutMs: z
      .number()
      .int()
      .min(0)
      .max(570_000)
      .optional()
      .describe("How long the statement is retried until it holds, in ms; 0 evaluates it once. Default 5000. Keep the step's own timeoutMs above it."),
  })
  .describe(
    "ASK only: the step is a check (an assertion). `step` is a statement about the page; the answer is { holds: true, reason, evidence, interpreter, attempts }, or the step fails WF_CHECK_FAILED with details { reason, evidence, attempts } (WF_ANSWER_UNCERTAIN when the model could not quote the page). Send no schema.",
  );
export type StepCheck = z.infer<typeof StepCheck>;

/**
 * One group of steps (`step()` of `@wf/core`, Playwright Test's `test.step`) a step runs in. A
 * service that records a trace opens it as a trace group (Playwright's `tracing.group`).
 */
export const StepGroupRef = z.object({
  id: z.string().min(1).max(64).describe("The group's id, unique in the session (a title may repeat)."),
  title: z.string().min(1).max(1000).describe("The group's title."),
});
export type StepGroupRef = z.infer<typeof StepGroupRef>;


/** Body of `POST /workflow/step/run/{id}` (spec §4.3 and the public samples). */
export const RunStepRequest = z
  .object({
    step: z.string().min(1).max(4000).describe("The natural-language instruction or question."),
    type: StepType,
    schema: StepSchema.optional().describe("Structured output wanted from an ASK (response format or JSON Schema)."),
    currentDom: z.string().optional().describe("HTML an ASK reads instead of the live page."),
    currentPageURL: z.string().optional().describe("Base URL of currentDom."),
    timeoutMs: z.number().int().positive().max(600_000).optional().describe("Step timeout in ms; server default otherwise."),
    redact: z
      .array(z.string().min(1).max(4000))
      .max(100)
      .optional()
      .describe(
        "Secret values the service must not record or show: each occurrence in the step's recorded text, result and error is replaced by \"[secret]\". The step itself runs with the real text.",
      ),
    replay: z
      .array(ReplayAction)
      .min(1)
      .max(20)
      .optional()
      .describe(
        "ACT only: replay a recorded resolution (an action lock) instead of interpreting `step`; no model is called. Each action's element is found by its instruction through the grammar, then (when that finds several or another) by its recorded locator, first by the locator when `primary` is `locator`; only exactly one element with the recorded role and accessible name is acted on, else the step fails WF_REPLAY_MISMATCH without acting.",
      ),
    recipe: ReadRecipe.optional().describe(
      "ASK only (not a check): run a recorded read recipe (an action lock's read entry) instead of answering `step`; no model is called. The answer is read from the page as it is now and checked against `schema`; a recipe whose table, label or list is no longer on the page, or whose answer does not fit the schema, fails the step WF_LOCK_STALE naming what was looked for and what was seen.",
    ),
    checkRecipe: CheckRecipe.optional().describe(
      "A check only (`check`): evaluate a recorded check recipe (an action lock's check entry) instead of the statement; no model is called. It passes when the recorded element's text equals or contains the recorded text, retried until the check's timeout; a recorded element no longer on the page (or no longer of its role) fails the step WF_LOCK_STALE naming it; one whose text no longer says it fails WF_CHECK_FAILED.",
    ),
    deriveRecipe: z
      .boolean()
      .optional()
      .describe(
        "ASK only (ignored otherwise): when the model answers, derive a read recipe from its answer and report it as the status's `recipe` (verified on the same page), or why none as `noRecipe`; for a check the model decided, its `checkRecipe` (or why none, `noRecipe`). It costs one more read of the page, so only a client that records it asks (an action lock being written: `--lock write` or `heal`). Default false: neither field is reported.",
      ),
    refind: z
      .boolean()
      .optional()
      .describe(
        "With `replay`: when a recorded instruction no longer finds its element (or finds another), look for the recorded element itself, by role and exact accessible name and then by its recorded locator, and act only on exactly one visible element of the recorded role. Such an action is reported in `result.actions` with `refound: true` and the instruction that names it now. Default false (a mismatch fails the step).",
      ),
    allowModel: z
      .boolean()
      .optional()
      .describe(
        "Whether the service may call its model for this step. Default true. false: the step runs as on a service without a model (an ACT through the grammar alone, an ASK through the page reader alone) and, where it would need the model, fails WF_MODEL_FORBIDDEN without calling it. Clients send false for a locked step with no lock entry (`--lock frozen`) and once a run's model budget is spent.",
      ),
    files: z
      .array(StepFile)
      .max(20)
      .optional()
      .describe(
        "ACT only: files the instruction uploads, sent by a client that does not share the service's disk (`wf run --base-url`). Up to MAX_STEP_UPLOAD_BYTES (10 MiB) together, decoded; more is a 413 WF_UPLOAD_TOO_LARGE. Kept in a folder of the session until it ends; never recorded.",
      ),
    check: StepCheck.optional(),
    groups: z
      .array(StepGroupRef)
      .max(32)
      .optional()
      .describe(
        "The groups the step runs in (`step()` of @wf/core), outermost first. Optional and informative: a service that records the session's trace closes the trace groups the step is no longer in and opens the new ones (Playwright's `tracing.group`) before running it; one that records none ignores it.",
      ),
  })
  .describe("Run one step in a session.");
export type RunStepRequest = z.infer<typeof RunStepRequest>;

/** Life cycle of one step. */
export const StepState = z.enum(["QUEUED", "RUNNING", "SUCCEEDED", "FAILED"]);
export type StepState = z.infer<typeof StepState>;

/** Error of a failed step or run: a stable `code` (`WF_ELEMENT_NOT_FOUND`, …) and a readable message. */
export const WireError = z.object({
  code: z.string(),
  message: z.string(),
  details: z.unknown().optional(),
});
export type WireError = z.infer<typeof WireError>;

/** Timestamps are ISO 8601 strings in UTC. */
const Timestamp = z.string().describe("ISO 8601 UTC timestamp");

/**
 * What the model calls of one step cost: every HTTP request to the provider is a call, failed,
 * retried and timed-out ones too. Absent (or null) on a step that made no model call.
 */
export const StepUsage = z.object({
  model: z.string().describe("The model asked, as configured (e.g. gpt-4.1-mini, qwen2.5:7b)."),
  promptTokens: z.number().int().nonnegative().describe("Prompt tokens over every call, as the provider reported them (estimated when `estimated`)."),
  completionTokens: z.number().int().nonnegative().describe("Completion tokens over every call."),
  totalTokens: z.number().int().nonnegative(),
  calls: z
    .number()
    .int()
    .nonnegative()
    .describe("HTTP requests sent to the provider: the SDK's retries (429, 5xx, resets), a retry after an invalid answer and the json_object fallback each count."),
  durationMs: z.number().nonnegative().describe("Time spent waiting for the provider, in ms."),
  estimated: z
    .boolean()
    .optional()
    .describe("True when some token counts are the service's estimate (4 characters a token): the provider reported none, or numbers that are not non-negative whole numbers. Absent: as reported."),
});
export type StepUsage = z.infer<typeof StepUsage>;

/** Which interpreter carried out a step: the deterministic grammar, or the model. */
export const StepInterpreterKind = z.enum(["grammar", "model"]);
export type StepInterpreterKind = z.infer<typeof StepInterpreterKind>;

/** The answer of a check that held (the `result` of its succeeded step). */
export const CheckAnswer = z.object({
  holds: z.literal(true),
  reason: z.string().describe("Why it holds, in one sentence."),
  evidence: z.string().describe("What was seen on the page: text quoted from it, the element and its state, the URL or the title."),
  interpreter: StepInterpreterKind.describe("Who evaluated it: a grammar form (no model) or the model."),
  attempts: z.number().int().positive().describe("Evaluations made before it held."),
});
export type CheckAnswer = z.infer<typeof CheckAnswer>;

/** A file a step downloaded (ours): kept with the session's records, fetched from {@link ROUTES.sessionDownload}. */
export const StepDownload = z.object({
  downloadId: z.string().describe("The {downloadId} of the download route."),
  name: z.string().describe("The file name the site suggested (Content-Disposition or the link's `download`), made safe as a file name."),
  sizeBytes: z.number().int().nonnegative().describe("The file's size, in bytes."),
  mimeType: z.string().describe("The media type the site sent (Content-Type), else one guessed from the name, else application/octet-stream."),
  url: z.string().describe("Where it was downloaded from."),
});
export type StepDownload = z.infer<typeof StepDownload>;

/** A JavaScript dialog a page opened during a step (ours), and what was done with it. */
export const StepDialog = z.object({
  type: z.enum(["alert", "confirm", "prompt", "beforeunload"]),
  message: z.string().describe("The dialog's text (at most 500 characters)."),
  handled: z.enum(["accepted", "dismissed"]),
  count: z.number().int().positive().describe("How many times in a row the page opened this same dialog (an alert in a loop is one entry)."),
});
export type StepDialog = z.infer<typeof StepDialog>;

/** How long a step waited for the page to settle before it read it (ours): see the server README, "How it runs steps". */
export const StepSettle = z.object({
  waitedMs: z.number().int().nonnegative().describe("How long the step waited for the page's requests and a quiet DOM before reading it, in ms (summed over its waits)."),
  capReached: z
    .boolean()
    .describe("True when the wait reached its cap (the server's settleTimeoutMs) with requests in flight or the DOM still changing: the page was read as it was then. Not a failure."),
  pending: z.array(z.string()).describe("Requests still in flight at the cap (`GET http://host/path`, no query string), at most 5."),
  longLived: z
    .array(z.string())
    .describe("Requests in flight that were not waited for because they stay open: EventSource, WebSocket, and requests open longer than half the cap (long-polls, streams); at most 5."),
});
export type StepSettle = z.infer<typeof StepSettle>;

/** Body of `GET /workflow/step/status/{stepId}`. */
export const StepStatus = z.object({
  stepId: z.string(),
  jobTaskId: z.string(),
  sessionId: z.string().describe("The session the step belongs to (the step session's workflowId)."),
  index: z.number().int().nonnegative().describe("Position of the step in its session, from 0."),
  type: StepType,
  step: z.string().describe("The instruction as sent."),
  status: StepState,
  createdAt: Timestamp,
  startedAt: Timestamp.nullable(),
  finishedAt: Timestamp.nullable(),
  durationMs: z.number().nonnegative().nullable().describe("finishedAt − startedAt, in ms."),
  result: z
    .unknown()
    .optional()
    .describe("For a succeeded ASK, the answer JSON (valid against the step's schema); for an ACT, what was done."),
  error: WireError.nullable().optional(),
  pageUrl: z.string().nullable().optional().describe("The page's URL after the step."),
  interpreter: StepInterpreterKind.nullable()
    .optional()
    .describe("Who carried the step out: the grammar (no model call) or the model. Null until it ran."),
  resolved: z
    .string()
    .nullable()
    .optional()
    .describe(
      "ACT only: the grammar instruction that was executed, e.g. 'click the \"Apply\" button'. For a step the model resolved, the readable equivalent of what it did; secrets appear as [secret].",
    ),
  usage: StepUsage.nullable().optional().describe("Tokens and time of the step's model calls; null when it made none."),
  pageReduced: z
    .boolean()
    .optional()
    .describe("True when the page was larger than the model's prompt budget and only the parts relevant to the step were sent."),
  replayed: z.boolean().optional().describe("True when the step ran the recorded actions of its request's `replay` (ACT), its recorded read `recipe` (ASK) or its recorded `checkRecipe` (a check): no model call."),
  recipe: ReadRecipe.optional().describe(
    "ASK the model answered: a read recipe that reproduced its answer exactly on the same page (verified before it is given), for an action lock to replay with no model.",
  ),
  checkRecipe: CheckRecipe.optional().describe(
    "A check the model decided (asked with `deriveRecipe`): a check recipe that gave the model's verdict on the same page (verified before it is given), for an action lock to replay with no model.",
  ),
  noRecipe: z.string().optional().describe("ASK the model answered (or a check it decided) with no `recipe`/`checkRecipe`: why none reproduces its answer (e.g. the answer needs judgement)."),
  settle: StepSettle.optional().describe(
    "How the step waited for the page to settle before it read it (an ASK, a check, a model's view of the page). Absent when it waited for nothing: the page was quiet.",
  ),
  downloads: z
    .array(StepDownload)
    .optional()
    .describe("The files the step downloaded (a click on an attachment), each fetched from the session's download route. Absent when none."),
  dialogs: z
    .array(StepDialog)
    .optional()
    .describe("The JavaScript dialogs the page opened during the step (or since the step before), and what the session's dialog rule did with each. Absent when none."),
});
export type StepStatus = z.infer<typeof StepStatus>;

/**
 * Body of the 200 answer of `POST /workflow/step/run/{id}` (spec §2.2: `stepId`, `jobTaskId`), and,
 * when the request asked to wait ({@link RunStepQuery} `waitMs`), the step's status at the answer.
 */
export const RunStepResponse = z.object({
  stepId: z.string(),
  jobTaskId: z.string().describe("Identifier of the session's job (the same for every step of a session)."),
  stepStatus: StepStatus.optional().describe(
    "Only with `?waitMs=`: the step's status when the answer was sent: SUCCEEDED or FAILED when it ended within waitMs, else QUEUED or RUNNING (then long-poll the step status route).",
  ),
});
export type RunStepResponse = z.infer<typeof RunStepResponse>;

/**
 * Query of the step-run route: `waitMs` (capped at {@link MAX_LONG_POLL_MS}) holds the answer until
 * the step ended or `waitMs` passed, and the answer then carries the step's status
 * (`RunStepResponse.stepStatus`): one request per step instead of a run and a long-poll. Absent or
 * 0: the answer comes at once, with the ids only (spec §4.3).
 */
export const RunStepQuery = z.object({
  waitMs: z.coerce
    .number()
    .int()
    .min(0)
    .optional()
    .describe(`Hold the answer until the step ended or this many ms passed (capped at ${MAX_LONG_POLL_MS}); the answer then carries \`stepStatus\`.`),
});
export type RunStepQuery = z.infer<typeof RunStepQuery>;

/** Query of the status routes: `waitMs` long-polls (capped at {@link MAX_LONG_POLL_MS}). */
export const LongPollQuery = z.object({
  waitMs: z.coerce.number().int().min(0).optional(),
  since: z.coerce.number().int().min(0).optional().describe("Session status only: answer once `version` exceeds this."),
});
export type LongPollQuery = z.infer<typeof LongPollQuery>;

// ---------------------------------------------------------------------------------------------
// Sessions: status, close, cancel (public samples; shapes ours)
// ---------------------------------------------------------------------------------------------

/** Kind of session: created for steps, or started from a stored workflow. */
export const SessionKind = z.enum(["STEP", "STORED"]);
export type SessionKind = z.infer<typeof SessionKind>;

/**
 * Life cycle of a session. A step session is `RUNNING` while open and `SUCCEEDED` once the client
 * closes it; `CANCELLED` when the idle timeout closed it; `FAILED` when the server restarted under
 * it. A stored run ends `SUCCEEDED`, `FAILED` or `CANCELLED`.
 */
export const SessionState = z.enum(["RUNNING", "SUCCEEDED", "FAILED", "CANCELLED"]);
export type SessionState = z.infer<typeof SessionState>;

/** A `log()` line of a stored run, as the session status carries it. */
export const SessionLogLine = z.object({
  at: Timestamp,
  message: z.string(),
  data: z.record(z.string(), z.unknown()).optional().describe("The structured data passed with the message, secrets redacted."),
  afterSteps: z.number().int().nonnegative().describe("How many steps the run had started when it logged the line: it belongs after step `afterSteps` (1-based) and before the next."),
});
export type SessionLogLine = z.infer<typeof SessionLogLine>;

/** Body of `GET /workflow/status/{id}`. */
export const SessionStatus = z.object({
  sessionId: z.string(),
  kind: SessionKind,
  workflowId: z.string().nullable().describe("For a stored run, the stored workflow's id; null for a step session."),
  status: SessionState,
  version: z.number().int().nonnegative().describe("Grows on every change; long-poll with ?since=version."),
  createdAt: Timestamp,
  updatedAt: Timestamp,
  finishedAt: Timestamp.nullable(),
  currentUrl: z.string().nullable(),
  steps: z.array(StepStatus),
  output: z.unknown().optional().describe("For a succeeded stored run, the workflow's output."),
  error: WireError.nullable().optional(),
  logs: z.array(SessionLogLine).optional().describe("For a stored run, the workflow's `log()` lines in the order logged; absent when there are none."),
  viewUrl: z.string().describe("The debugger / preview page of the session."),
});
export type SessionStatus = z.infer<typeof SessionStatus>;

/** Body of `POST /workflow/step/close/{id}` (ours; optional: no body closes as before). */
export const CloseSessionRequest = z
  .object({
    discardTrace: z
      .boolean()
      .optional()
      .describe(
        "true: the session's Playwright trace (create's `trace: true`) is dropped, not saved, and GET /workflow/view/{id}/trace answers 404. What `wf run` sends for a run that passed under `--trace retain-on-failure`, as Playwright Test drops a passing test's trace. Default false.",
      ),
  })
  .describe("Close a step session.");
export type CloseSessionRequest = z.input<typeof CloseSessionRequest>;

/** Body of the 200 answer of close and cancel: the session's status after the change. */
export const CloseSessionResponse = SessionStatus;
export type CloseSessionResponse = SessionStatus;

// ---------------------------------------------------------------------------------------------
// Stored workflows (spec §2.3, §4.2)
// ---------------------------------------------------------------------------------------------

/** Body of `POST /workflow/run` and `POST /run/workflows` (spec §4.2). */
export const RunWorkflowRequest = z
  .object({
    workflowId: z.string().min(1).describe("Id (the workflow's name) of a stored workflow."),
    variables: z.record(z.string(), z.string()).optional().describe("Inputs, validated against the workflow's params."),
    proxy: z.boolean().optional().describe("Run the session's browser behind the server's configured proxy."),
  })
  .describe("Run a stored workflow.");
export type RunWorkflowRequest = z.infer<typeof RunWorkflowRequest>;

/** Body of the 200 answer of running a stored workflow (spec §2.3). */
export const RunWorkflowResponse = z.object({
  sessionId: z.string(),
  previewUrl: z.string(),
});
export type RunWorkflowResponse = z.infer<typeof RunWorkflowResponse>;

/** One stored workflow the service offers. */
export const WorkflowInfo = z.object({
  workflowId: z.string(),
  description: z.string().nullable(),
  params: z.record(z.string(), z.unknown()).nullable().describe("JSON Schema of the workflow's params."),
  file: z.string().describe("Path of the workflow file, relative to the workflows folder."),
});
export type WorkflowInfo = z.infer<typeof WorkflowInfo>;

/** Body of `GET /workflows`. */
export const WorkflowList = z.object({
  workflows: z.array(WorkflowInfo),
  errors: z.array(z.object({ file: z.string(), message: z.string() })).describe("Files that failed to load."),
});
export type WorkflowList = z.infer<typeof WorkflowList>;

/** Body of `GET /health`. */
export const HealthResponse = z.object({ status: z.literal("ok"), version: z.string() });
export type HealthResponse = z.infer<typeof HealthResponse>;

// ---------------------------------------------------------------------------------------------
// Helpers shared by both sides
// ---------------------------------------------------------------------------------------------

/** A step schema reduced to its parts: the JSON Schema of the answer and its name. */
export interface NormalizedStepSchema {
  name: string;
  schema: Record<string, unknown>;
}

/**
 * Reduces any accepted form of a step's `schema` to `{ name, schema }`, or `undefined` when it
 * asks for no structured answer (absent or `{}`).
 *
 * Accepted: `{ type: "json_schema", json_schema: { name, schema } }` (a response format),
 * `{ name, schema }` (its inner object), or a bare JSON Schema (anything else non-empty).
 */
export function normalizeStepSchema(schema: Record<string, unknown> | undefined): NormalizedStepSchema | undefined {
  if (!schema || Object.keys(schema).length === 0) return undefined;
  if (schema.type === "json_schema" && isRecord(schema.json_schema)) {
    const inner = schema.json_schema;
    return { name: typeof inner.name === "string" ? inner.name : "answer", schema: isRecord(inner.schema) ? inner.schema : {} };
  }
  if (isRecord(schema.schema) && typeof schema.name === "string") {
    return { name: schema.name, schema: schema.schema };
  }
  return { name: "answer", schema };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
