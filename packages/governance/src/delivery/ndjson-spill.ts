import { existsSync } from "node:fs";
import { appendFile, readFile, rename, unlink, writeFile } from "node:fs/promises";

export interface NdjsonSpillOptions {
  /** The file; a previous process's is replayed too. */
  file: string;
  /** What the lines are, for warnings ("usage events", "settlements"). */
  what: string;
  onWarning: (message: string) => void;
}

/**
 * The overflow of a bounded in-memory queue (the usage history's and audit log's buffers, the
 * queued settlements): items go to an NDJSON file while their store is away and come back, in the
 * order they were spilled, when it answers — also a file a previous process left. Appends are
 * chained, so lines keep the order of the calls. A torn or unreadable line (a process killed
 * mid-append) is skipped with a warning instead of blocking every later replay.
 */
export class NdjsonSpill<T> {
  readonly #file: string;
  readonly #what: string;
  readonly #onWarning: (message: string) => void;
  /** True while the file (this process's or a previous one's) may hold items not yet replayed. */
  #mayHoldItems = true;
  /** The file work in order: appends, takes and restores never interleave. */
  #fileWork: Promise<unknown> = Promise.resolve();

  constructor(options: NdjsonSpillOptions) {
    this.#file = options.file;
    this.#what = options.what;
    this.#onWarning = options.onWarning;
  }

  /** Whether items wait on disk now (a previous process's, at start). */
  exists(): boolean {
    return [this.#file, `${this.#file}.replaying`, `${this.#file}.newer`].some((path) => existsSync(path));
  }

  get mayHoldItems(): boolean {
    return this.#mayHoldItems;
  }

  /**
   * Appends after every earlier append. When the file cannot be written the items are handed to
   * `keep` (back into memory) and a warning says how many; the returned promise never rejects.
   */
  spill(items: T[], keep: (items: T[]) => void): Promise<void> {
    this.#mayHoldItems = true;
    const lines = linesOf(items);
    return this.#serial(() => appendFile(this.#file, lines)).catch((error: Error) => {
      this.#onWarning(`governance: ${this.#what} spill file unwritable (${error.message}); ${items.length} kept in memory`);
      keep(items);
    });
  }

  /** Appends after every earlier append, rejecting when the file cannot be written (a shutdown's last resort). */
  async spillOrThrow(items: T[]): Promise<void> {
    if (items.length === 0) return this.settled();
    this.#mayHoldItems = true;
    const lines = linesOf(items);
    await this.#serial(() => appendFile(this.#file, lines));
  }

  /** Resolves once all file work so far has finished. */
  async settled(): Promise<void> {
    await this.#fileWork;
  }

  /**
   * Hands the file's items to `apply` in order, `batchSize` at a time, and removes the file.
   * When `apply` rejects, the items it did not take go back to the file ahead of anything spilled
   * meanwhile, and the rejection is passed on. One replay at a time (the owner's flush runs once).
   */
  async replay(apply: (items: T[]) => Promise<void>, batchSize: number): Promise<void> {
    // Cleared before anything is awaited: a spill from now on sets it again, so its lines (in the
    // file taken below, or in a new one) are replayed now or next time. Cleared after the take,
    // a spill appended between the two would be left in a file nobody reads.
    this.#mayHoldItems = false;
    const replaying = `${this.#file}.replaying`;
    let text: string;
    try {
      text = await this.#serial(async () => {
        await this.#takeFile(replaying);
        return readFile(replaying, "utf8").catch(emptyWhenMissing);
      });
    } catch (error) {
      this.#mayHoldItems = true;
      throw error;
    }
    if (text === "") return unlink(replaying).catch(() => undefined);
    const items = this.#parse(text);
    let applied = 0;
    try {
      while (applied < items.length) {
        const batch = items.slice(applied, applied + batchSize);
        await apply(batch);
        applied += batch.length;
      }
    } catch (error) {
      this.#mayHoldItems = true;
      const rest = linesOf(items.slice(applied));
      await this.#serial(async () => {
        const later = await readFile(this.#file, "utf8").catch(emptyWhenMissing);
        await writeFile(replaying, rest + later);
        await rename(replaying, this.#file);
      });
      throw error;
    }
    await unlink(replaying);
  }

  #serial<R>(work: () => Promise<R>): Promise<R> {
    const run = this.#fileWork.then(work);
    this.#fileWork = run.catch(() => undefined);
    return run;
  }

  /**
   * Moves the file's lines to the end of `replaying`, where a replay cut short by a crash may have
   * left older ones. The file is renamed away first, so a spill meanwhile starts a new one.
   */
  async #takeFile(replaying: string): Promise<void> {
    const newer = `${this.#file}.newer`;
    // A crash between a rename and its fold below left `newer`: its lines come before the file's.
    await foldInto(newer, replaying);
    try {
      await rename(this.#file, newer);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
    }
    await foldInto(newer, replaying);
  }

  #parse(text: string): T[] {
    const items: T[] = [];
    let unreadable = 0;
    for (const line of text.split("\n")) {
      if (line.length === 0) continue;
      try {
        items.push(JSON.parse(line) as T);
      } catch {
        unreadable += 1;
      }
    }
    if (unreadable > 0)
      this.#onWarning(`governance: ${unreadable} unreadable line${unreadable === 1 ? "" : "s"} of the ${this.#what} spill file skipped`);
    return items;
  }
}

async function foldInto(from: string, to: string): Promise<void> {
  const lines = await readFile(from, "utf8").catch(emptyWhenMissing);
  if (lines !== "") await appendFile(to, lines);
  await unlink(from).catch(() => undefined);
}

function emptyWhenMissing(error: NodeJS.ErrnoException): string {
  if (error.code === "ENOENT") return "";
  throw error;
}

function linesOf(items: unknown[]): string {
  let lines = "";
  for (const item of items) lines += `${JSON.stringify(item)}\n`;
  return lines;
}
