/**
 * What a session knows of its secrets: the values its steps asked to hide (`redact`), the
 * redaction of them (every encoding, see `createRedactor` in `@wf/core`), which elements of its
 * pages a secret was typed into (so pictures mask them), and when a secret could be seen on the
 * page (so the trace's screencast frames of those times are dropped). One per live session.
 */
import { createRedactor, type Redactor } from "@wf/core";
import type { Frame, Locator, Page } from "playwright-core";

/** Attribute put on an element whose value held a secret: pictures mask it while it is on the page. */
export const SECRET_FIELD_ATTRIBUTE = "data-wf-secret";

/** What every picture masks: elements a secret was typed into, and every password field. */
export const MASKED_SELECTOR = `[${SECRET_FIELD_ATTRIBUTE}], input[type="password" i]`;

/** Colour of the boxes painted over masked elements (Playwright's `maskColor`). */
export const MASK_COLOR = "#FF00FF";

/** Longest the fields of a page are read for after a step, in ms. */
const MARK_TIMEOUT_MS = 2_000;

/** The secrets of one session. */
export class SessionSecrets {
  private readonly values = new Set<string>();
  private redactorOf: Redactor = createRedactor([]);
  /** Wall-clock intervals (ms since the epoch) when a secret could be on the page; the last may be open. */
  private readonly windows: Array<{ from: number; to?: number }> = [];

  /** The redaction of every secret seen so far in the session. */
  get redactor(): Redactor {
    return this.redactorOf;
  }

  /** Whether any step of the session carried a secret. */
  get any(): boolean {
    return this.values.size > 0;
  }

  /**
   * Adds a step's secret values (its `redact`), before the step runs: from now on a secret may be
   * typed, so the screencast is considered exposed until {@link SessionSecrets.markFields} finds
   * no secret on the page.
   */
  add(values: readonly string[] | undefined, now = Date.now()): void {
    if (!values || values.length === 0) return;
    let grew = false;
    for (const value of values) {
      if (value && !this.values.has(value)) {
        this.values.add(value);
        grew = true;
      }
    }
    if (grew) this.redactorOf = createRedactor(this.values);
    if (this.values.size > 0 && !this.exposed) this.windows.push({ from: now });
  }

  private get exposed(): boolean {
    const last = this.windows[this.windows.length - 1];
    return last !== undefined && last.to === undefined;
  }

  /** Whether a secret could be seen on the page at `wallTimeMs` (ms since the epoch). */
  exposedAt(wallTimeMs: number): boolean {
    return this.windows.some((w) => wallTimeMs >= w.from && (w.to === undefined || wallTimeMs <= w.to));
  }

  /**
   * Marks, in every frame of `page`, each text field whose value holds a secret (in any encoding)
   * with {@link SECRET_FIELD_ATTRIBUTE}, so pictures mask it; an element once marked stays masked
   * while it is on the page. The secrets never enter the page: the fields' values are read and
   * compared here. Closes the screencast's exposure when no marked element is left and the URL
   * holds no secret. Never throws (a page that navigates away mid-way is read at the next step).
   *
   * @returns how many marked elements the page holds now.
   */
  async markFields(page: Page, now = () => Date.now()): Promise<number> {
    if (!this.any || page.isClosed()) return 0;
    let marked = 0;
    let readAll = true;
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<void>((resolve) => (timer = setTimeout(resolve, MARK_TIMEOUT_MS)));
    const done = Promise.all(
      page.frames().map(async (frame) => {
        try {
          marked += await this.markFrame(frame);
        } catch {
          readAll = false;
        }
      }),
    ).then(() => "done" as const);
    // A frame stuck in a navigation must not hold the step's queue: the fields are read again next step.
    if ((await Promise.race([done, late])) !== "done") readAll = false;
    clearTimeout(timer);
    const urlHolds = page.frames().some((frame) => this.redactorOf.test(safeUrl(frame)));
    if (readAll && marked === 0 && !urlHolds && this.exposed) this.windows[this.windows.length - 1]!.to = now();
    if ((marked > 0 || urlHolds) && !this.exposed) this.windows.push({ from: now() });
    return marked;
  }

  private async markFrame(frame: Frame): Promise<number> {
    const fields = await frame.evaluate((attribute) => {
      const out: Array<{ i: number; value: string; marked: boolean }> = [];
      const all = document.querySelectorAll("input, textarea, [contenteditable]");
      all.forEach((el, i) => {
        const value = el instanceof HTMLInputElement || el instanceof HTMLTextAreaElement ? el.value : (el.textContent ?? "");
        out.push({ i, value: value.slice(0, 20_000), marked: el.hasAttribute(attribute) });
      });
      return out;
    }, SECRET_FIELD_ATTRIBUTE);
    const toMark = fields.filter((f) => !f.marked && f.value && this.redactorOf.test(f.value)).map((f) => f.i);
    if (toMark.length > 0) {
      await frame.evaluate(
        ({ attribute, indexes }) => {
          const all = document.querySelectorAll("input, textarea, [contenteditable]");
          for (const i of indexes) all[i]?.setAttribute(attribute, "");
        },
        { attribute: SECRET_FIELD_ATTRIBUTE, indexes: toMark },
      );
    }
    return fields.filter((f) => f.marked).length + toMark.length;
  }

  /**
   * The locators a picture of `page` must mask (one per frame that holds a marked element or a
   * password field), or an empty list when there is nothing to mask (a plain capture will do).
   */
  async maskFor(page: Page): Promise<Locator[]> {
    if (page.isClosed()) return [];
    const found = await Promise.all(
      page.frames().map(async (frame) => {
        const locator = frame.locator(MASKED_SELECTOR);
        return (await locator.count().catch(() => 0)) > 0 ? locator : undefined;
      }),
    );
    return found.filter((l): l is Locator => l !== undefined);
  }
}

function safeUrl(frame: Frame): string {
  try {
    return frame.url();
  } catch {
    return "";
  }
}
