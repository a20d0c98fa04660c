/**
 * `@wf/cli/vitest/setup`: list it in Vitest's `setupFiles` to bind `act`/`ask`/`check` to a wf
 * session in every test (see `useWf` in `@wf/cli/vitest`).
 */
import { useWf } from "./vitest.js";

useWf();
