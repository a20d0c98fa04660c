/** Types of clone-build-state.mjs (plain JavaScript, read by bin/wf.js before anything loads). */
export declare const REPO: string;
export declare const CLONE_DIST: string;
export declare const MANIFEST: string;
/** Every input of the clone's build as `[path relative to the repository, size, mtimeMs]`, sorted by path. */
export declare function currentInputs(): Array<[path: string, size: number, mtimeMs: number]>;
/** True when dist-clone/ holds a build of exactly the current inputs. */
export declare function cloneBuildIsCurrent(): boolean;
