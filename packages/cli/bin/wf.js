#!/usr/bin/env node
// Launcher of the `wf` command: registers tsx so the CLI (and the user's workflow files) run as
// TypeScript without a build step, then hands over to src/bin.ts.
import { register } from "tsx/esm/api";

register();
await import("../src/bin.ts");
