/**
 * Secrets out of the JSON wf writes (run records, reporter events), without touching its shape.
 * Redacting the serialized text instead would also rewrite field names and numbers: a secret
 * such as "in" turned `index` into `[secret]dex` (steps lost their index, the report saved
 * `step-undefined.png`), and a secret such as "1" turned `"index": 1` into text that is no longer
 * JSON. The same goes for the values the service and the runtime make (ids, times, the debugger
 * link): a short secret that happens to occur in a hex id would break the link to the step's
 * screenshot.
 */

/** Fields whose values wf makes (ids, ISO times, its own link): they hold no secret and are kept whole. */
const OWN_VALUES = new Set(["sessionId", "stepId", "startedAt", "finishedAt", "debuggerUrl"]);

/** Fields whose objects are data a page or the workflow supplied, so their keys may hold a secret too. */
const DATA_FIELDS = new Set(["output", "result", "answer", "details"]);

/**
 * A copy of `value` (plain JSON-like data) with `redact` applied to every string, and to the keys
 * of the objects under `output`, `result`, `answer` and `details`; field names of wf's own shapes,
 * numbers, booleans, and the ids, times and link wf made are kept as they are.
 */
export function redactJson<T>(value: T, redact: (text: string) => string): T {
  const walk = (v: unknown, keys: boolean): unknown => {
    if (typeof v === "string") return redact(v);
    if (v === null || typeof v !== "object") return v;
    if (Array.isArray(v)) return v.map((item) => walk(item, keys));
    return Object.fromEntries(
      Object.entries(v).map(([key, item]) => (keys ? [redact(key), walk(item, true)] : [key, OWN_VALUES.has(key) ? item : walk(item, DATA_FIELDS.has(key))])),
    );
  };
  return walk(value, false) as T;
}
