/**
 * `devices`: playwright-core's device descriptors (`devices["Pixel 7"]`, `devices["iPhone 15"]`,
 * `devices["Desktop Chrome"]`), for `use: { ...devices["Pixel 7"] }` in wf.config.ts as in a
 * Playwright config. playwright-core is loaded at the first read of a descriptor, not when
 * `@wf/cli` is imported: a config that names no device does not pay for it.
 */
import { createRequire } from "node:module";

/** A device descriptor: the `use` options that emulate a device (Playwright's `DeviceDescriptor`). */
export interface DeviceDescriptor {
  userAgent: string;
  viewport: { width: number; height: number };
  screen?: { width: number; height: number };
  deviceScaleFactor: number;
  isMobile: boolean;
  hasTouch: boolean;
  defaultBrowserType: "chromium" | "firefox" | "webkit";
}

let loaded: Readonly<Record<string, DeviceDescriptor>> | undefined;
const descriptors = (): Readonly<Record<string, DeviceDescriptor>> =>
  (loaded ??= (createRequire(import.meta.url)("playwright-core") as { devices: Record<string, DeviceDescriptor> }).devices);

/**
 * playwright-core's device descriptors by name, read on first use.
 * @example
 * projects: [{ name: "mobile", use: { ...devices["Pixel 7"], baseURL: "http://localhost:3000" } }]
 */
export const devices: Readonly<Record<string, DeviceDescriptor>> = new Proxy({} as Record<string, DeviceDescriptor>, {
  get: (_target, name) => (typeof name === "string" ? descriptors()[name] : undefined),
  has: (_target, name) => typeof name === "string" && name in descriptors(),
  ownKeys: () => Reflect.ownKeys(descriptors()),
  getOwnPropertyDescriptor: (_target, name) => {
    const value = typeof name === "string" ? descriptors()[name] : undefined;
    return value ? { value, enumerable: true, configurable: true, writable: false } : undefined;
  },
});
