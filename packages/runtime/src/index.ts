/**
 * `@wf/runtime`: the wf service client (undici) and `runWorkflow()`, the step-by-step executor
 * that runs a workflow file's handler against the service.
 */
export { createServiceClient } from "./client.js";
export type { ServiceClient, ServiceClientOptions, CallOptions, RunStepOptions, CloseSessionOptions, StatusOptions, SessionStatusOptions, RetryOptions } from "./client.js";
export { ServiceError, UploadError } from "./errors.js";
export type { ServiceErrorCode, ServiceErrorInit, UploadErrorCode } from "./errors.js";
export { runWorkflow, totalUsage } from "./run.js";
export { RUN_RECORD_VERSION } from "./types.js";
export type { RunWorkflowOptions } from "./run.js";
export type { RunLockOptions } from "./locked-steps.js";
export { LOCK_MODES, lockPathFor, readLock, parseLock, writeLock, formatLock, diffLocks } from "./lock.js";
export type { LockMode, LockFile, LockEntry, LockedAction, LockedElement, LockEntryChange } from "./lock.js";
export { ModelBudget } from "./model-budget.js";
export type { RunStatus, StepRecord, RunRecord, RunEvent, RunUsage, GroupRecord, LogRecord } from "./types.js";
