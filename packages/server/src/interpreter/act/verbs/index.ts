/**
 * The verb table: one handler per grammar verb, each declaring what it acts on and how it runs
 * (Stagehand keeps one handler per method the same way). `performAction` dispatches through it;
 * the mapped type makes a verb without a handler a compile error.
 */
import type { Verb, VerbHandler } from "../verb.js";
import { check } from "./check.js";
import { clear, fill, press, typeFocused } from "./keyboard.js";
import { goto, history } from "./navigate.js";
import { pointer } from "./pointer.js";
import { scroll, scrollEdge, scrollTo } from "./scroll.js";
import { search } from "./search.js";
import { select } from "./select.js";
import { tabs } from "./tabs.js";
import { upload } from "./upload.js";
import { waitGone, waitSettled, waitText, waitTime } from "./wait.js";

/** Every verb of the grammar → its handler. */
export const VERBS: { readonly [V in Verb]: VerbHandler<V> } = {
  goto,
  back: history,
  forward: history,
  reload: history,
  click: pointer,
  dblclick: pointer,
  rightclick: pointer,
  hover: pointer,
  fill,
  "type-focused": typeFocused,
  clear,
  press,
  select,
  check,
  uncheck: check,
  scroll,
  "scroll-edge": scrollEdge,
  "scroll-to": scrollTo,
  "wait-text": waitText,
  "wait-gone": waitGone,
  "wait-time": waitTime,
  "wait-settled": waitSettled,
  search,
  upload,
  "switch-tab": tabs,
  "close-tab": tabs,
};
