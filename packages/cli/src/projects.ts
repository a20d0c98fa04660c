/**
 * `use` and `projects` of `wf.config.ts`, as Playwright Test names them: the options each
 * workflow's browser context is made with (the app's `baseURL`, `viewport`, `locale`, a device
 * descriptor's fields), and the projects that run every selected workflow once each with their own
 * `use` (`--project` picks some). wf runs Chromium only: a project whose device names another
 * browser gets that device's viewport, user agent and touch in Chromium, and a notice says so.
 */
import { z } from "zod";
import { SessionContextOptions } from "@wf/core/protocol";
import { CliUsageError } from "./errors.js";

/**
 * The options of `use` (top level, or a project's): Playwright's names and meanings.
 * `defaultBrowserType` is accepted so that a device descriptor spreads in whole
 * (`{ ...devices["Pixel 7"] }`); wf always runs Chromium.
 */
export interface UseOptions {
  /** The app's address: `go to /login` opens `<baseURL>/login`, as `page.goto("/login")` does. Env `WF_APP_URL`, flag `--app-url` (they beat every project's). */
  baseURL?: string;
  /** The page's size in CSS pixels. @default 1280×720 (Chromium's) */
  viewport?: { width: number; height: number };
  /** The screen size `window.screen` reports. */
  screen?: { width: number; height: number };
  /** Device pixels per CSS pixel. @default 1 */
  deviceScaleFactor?: number;
  /** Honour the meta viewport tag and touch as a phone does. @default false */
  isMobile?: boolean;
  /** Support touch events. @default false */
  hasTouch?: boolean;
  /** The User-Agent header and `navigator.userAgent`. */
  userAgent?: string;
  /** A BCP 47 tag, e.g. `en-GB`: `navigator.language`, `Accept-Language`, number and date formats. */
  locale?: string;
  /** An IANA time zone, e.g. `Europe/Paris`. */
  timezoneId?: string;
  colorScheme?: "light" | "dark" | "no-preference";
  reducedMotion?: "reduce" | "no-preference";
  /** Headers sent with every request. */
  extraHTTPHeaders?: Record<string, string>;
  /** @default true */
  javaScriptEnabled?: boolean;
  /** A device descriptor's browser; wf runs Chromium whatever it says (a notice tells). */
  defaultBrowserType?: "chromium" | "firefox" | "webkit";
}

/** One project: a name and its `use`, laid over the top-level `use`. */
export interface ProjectConfig {
  /** Shown in reports (`[mobile] › flows/cart.ts › cart`) and chosen with `--project mobile`. */
  name: string;
  use?: UseOptions;
}

/** A project as runs see it: its name and the context options every session of it is made with. */
export interface ResolvedProject {
  name: string;
  use: SessionContextOptions;
}

/** Playwright `use` options wf keeps elsewhere, and where. */
const ELSEWHERE: Record<string, string> = {
  headless: "the browser window is `headed: true` at the top of wf.config.ts (--headed)",
  trace: "`trace` is a top-level setting of wf.config.ts (--trace)",
  screenshot: "`screenshot` is a top-level setting of wf.config.ts (--screenshot)",
  video: "wf records no video; a trace (`trace: \"on\"`) keeps a picture of every action",
  actionTimeout: "a step's timeout is `act(…, { timeoutMs })`",
  navigationTimeout: "a step's timeout is `act(…, { timeoutMs })`",
  channel: "wf runs the Chromium it finds (WF_CHROMIUM_PATH)",
  launchOptions: "the browser is launched by the wf service (headed, slowMoMs in wf.config.ts)",
};

/** `use` as wf.config.ts may write it: the session's context options, and a device's browser type. */
export const UseSchema = SessionContextOptions.extend({ defaultBrowserType: z.enum(["chromium", "firefox", "webkit"]).optional() }).strict();

export const ProjectSchema = z
  .object({
    name: z.string().min(1).max(100).regex(/^[^\s[\]]+(?: [^\s[\]]+)*$/, "a name without brackets or leading/trailing spaces, like desktop or mobile-safari"),
    use: UseSchema.optional(),
  })
  .strict();

/**
 * Says where a Playwright `use` option wf does not take lives in wf, for a config error's line.
 * @returns undefined for a key wf has no place for.
 */
export function useKeyHint(key: string): string | undefined {
  return ELSEWHERE[key];
}

/**
 * Resolves `use` and `projects`: the top-level `use`, each project's `use` laid over it, and
 * `appUrl` (`--app-url`, `WF_APP_URL`) over every `baseURL`; then the projects `wanted` picks
 * (`--project`, names compared without case), all of them when it is empty.
 *
 * @param notices - receives a line per project whose device names a browser other than Chromium.
 * @returns the top-level context options, and the selected projects (none when the file has none).
 * @throws {@link CliUsageError} `WF_CLI_CONFIG_INVALID` for two projects of one name, an `appUrl` that
 *   is not an http(s) or file URL, `--project` without projects or naming an unknown one.
 */
export function resolveProjects(
  file: { use?: UseOptions | undefined; projects?: ReadonlyArray<ProjectConfig> | undefined },
  appUrl: string | undefined,
  wanted: ReadonlyArray<string>,
  notices: string[],
): { use: SessionContextOptions; projects: ResolvedProject[] } {
  if (appUrl !== undefined && !SessionContextOptions.shape.baseURL.safeParse(appUrl).success) {
    throw new CliUsageError("WF_CLI_CONFIG_INVALID", `The app's URL "${appUrl}" (--app-url, WF_APP_URL) is not an http(s) or file URL. Give one like http://localhost:3000.`);
  }
  const contextOf = (use: UseOptions): SessionContextOptions => {
    const { defaultBrowserType: _browser, ...context } = use;
    return Object.fromEntries(Object.entries(context).filter(([, v]) => v !== undefined)) as SessionContextOptions;
  };
  const top = contextOf(file.use ?? {});
  if (appUrl !== undefined) top.baseURL = appUrl;
  const all: ResolvedProject[] = [];
  const seen = new Set<string>();
  for (const project of file.projects ?? []) {
    if (seen.has(project.name.toLowerCase())) throw new CliUsageError("WF_CLI_CONFIG_INVALID", `Two projects are named "${project.name}" in wf.config.ts. Give each project its own name.`);
    seen.add(project.name.toLowerCase());
    const use = { ...top, ...contextOf(project.use ?? {}) };
    if (appUrl !== undefined) use.baseURL = appUrl;
    all.push({ name: project.name, use });
    const browser = project.use?.defaultBrowserType;
    if (browser && browser !== "chromium") {
      notices.push(`project "${project.name}" names the ${browser} browser (defaultBrowserType): wf runs Chromium, with the project's viewport, user agent and touch.`);
    }
  }
  if (wanted.length === 0) return { use: top, projects: all };
  if (all.length === 0) {
    throw new CliUsageError("WF_CLI_CONFIG_INVALID", `--project ${wanted.join(", ")}: wf.config.ts defines no projects. Add projects: [{ name, use }] to it, or drop --project.`);
  }
  const picked = new Set<ResolvedProject>();
  for (const name of wanted) {
    const match = all.find((p) => p.name.toLowerCase() === name.toLowerCase());
    if (!match) throw new CliUsageError("WF_CLI_CONFIG_INVALID", `Project "${name}" not found (--project). The projects of wf.config.ts: ${all.map((p) => p.name).join(", ")}.`);
    picked.add(match);
  }
  return { use: top, projects: all.filter((p) => picked.has(p)) };
}

/** Whether `use` asks for anything but a base URL (the session then gets a browser context of its own). */
export function changesContext(use: SessionContextOptions | undefined): boolean {
  return Object.entries(use ?? {}).some(([key, value]) => key !== "baseURL" && value !== undefined);
}
