import { Worker } from 'node:worker_threads';
import type { ExpandedResource } from './resource.ts';

/** A sync's changed resources, as the expansion thread takes them (expand-thread.ts). */
export interface ExpandRequest {
  id: number;
  items: { href: string; data: string }[];
  windowStart: number;
  windowEnd: number;
  zone: string;
  ownUids: string[];
}

/** One resource's busy blocks as the thread sends them: epoch milliseconds, buffers transferred. */
export interface PackedResource {
  href: string;
  events: number;
  skipped: number;
  starts: Float64Array;
  ends: Float64Array;
}

export interface ExpandReply {
  id: number;
  results: PackedResource[];
}

export interface ExpanderOptions {
  /** One request's longest run before its thread is stopped and the request fails. */
  timeoutMs?: number;
  /** A thread idle this long is stopped; the next request starts another. */
  idleMs?: number;
}

interface Job {
  req: Omit<ExpandRequest, 'id'>;
  resolve: (resources: ExpandedResource[]) => void;
  reject: (err: Error) => void;
}

/** A third of a sync's 15-minute lease (sync.ts): a sync past it could not store its result anyway. */
const TIMEOUT_MS = 5 * 60_000;
const IDLE_MS = 30_000;
/**
 * What a hostile calendar may take: past this heap the thread stops (the request fails, the
 * process goes on). 10,000 resources (bench/ics.bench.ts) need about a tenth of it.
 */
const RESOURCE_LIMITS = { maxOldGenerationSizeMb: 256, maxYoungGenerationSizeMb: 16 };

/**
 * Expands calendar resources into busy blocks on a thread of its own (docs/calendars.md, "Cost"):
 * one event can take a second or more of CPU within the expansion limits, and `serve` answers
 * the API on its main thread. Requests run one at a time, in order, so a request that fails
 * (timed out, out of memory) fails alone; the thread is started on demand and stopped when idle,
 * and never keeps the process alive while idle.
 */
export class IcsExpander {
  private readonly timeoutMs: number;
  private readonly idleMs: number;
  private thread: Worker | undefined;
  private readonly queue: Job[] = [];
  private current: { id: number; job: Job; timer: NodeJS.Timeout | undefined } | undefined;
  /** Whether the thread has loaded its code: a request's time counts from then. */
  private ready = false;
  private nextId = 1;
  private idle: NodeJS.Timeout | undefined;

  constructor(options: ExpanderOptions = {}) {
    this.timeoutMs = options.timeoutMs ?? TIMEOUT_MS;
    this.idleMs = options.idleMs ?? IDLE_MS;
  }

  /** `items`' busy blocks in the window, in the member's zone, in the order given. */
  expand(
    items: readonly { href: string; data: string }[],
    window: { start: Date; end: Date },
    zone: string,
    ownUids: ReadonlySet<string>,
  ): Promise<ExpandedResource[]> {
    if (items.length === 0) return Promise.resolve([]);
    const req = {
      items: items.map((i) => ({ href: i.href, data: i.data })),
      windowStart: window.start.getTime(),
      windowEnd: window.end.getTime(),
      zone,
      ownUids: [...ownUids],
    };
    return new Promise((resolve, reject) => {
      this.queue.push({ req, resolve, reject });
      this.next();
    });
  }

  /** Stops the thread; requests not yet answered fail. */
  async close(): Promise<void> {
    clearTimeout(this.idle);
    const err = new Error('calendar expansion stopped: the process is shutting down');
    for (const job of this.queue.splice(0)) job.reject(err);
    this.settle(err);
    await this.stopThread();
  }

  private next(): void {
    if (this.current || this.queue.length === 0) return;
    clearTimeout(this.idle);
    const job = this.queue.shift()!;
    const thread = this.start();
    thread.ref();
    const id = this.nextId++;
    this.current = { id, job, timer: undefined };
    if (this.ready) this.startClock();
    thread.postMessage({ id, ...job.req } satisfies ExpandRequest);
  }

  private startClock(): void {
    const current = this.current;
    if (!current || current.timer) return;
    current.timer = setTimeout(() => {
      if (this.current !== current) return;
      this.settle(new Error(`calendar expansion took longer than ${this.timeoutMs / 1000} s`));
      void this.stopThread();
      this.next();
    }, this.timeoutMs);
  }

  private start(): Worker {
    if (this.thread) return this.thread;
    const thread = new Worker(new URL('./expand-thread.ts', import.meta.url), { resourceLimits: RESOURCE_LIMITS });
    this.ready = false;
    thread.on('message', (reply: ExpandReply | 'ready') => {
      // a thread stopped (timed out, closed) may still have a message on its way
      if (this.thread !== thread) return;
      if (reply === 'ready') {
        this.ready = true;
        this.startClock();
        return;
      }
      if (reply.id !== this.current?.id) return;
      this.settle(undefined, reply.results.map(unpack));
      if (this.queue.length > 0) this.next();
      else this.rest(thread);
    });
    const lost = (err: Error) => {
      if (this.thread !== thread) return;
      this.thread = undefined;
      this.settle(err);
      this.next();
    };
    thread.on('error', (err) => lost(new Error(`calendar expansion failed: ${err.message}`)));
    thread.on('exit', (code) => lost(new Error(`calendar expansion stopped (thread exit ${code})`)));
    this.thread = thread;
    return thread;
  }

  /** Answers the current request, if any. */
  private settle(err: Error | undefined, resources?: ExpandedResource[]): void {
    const current = this.current;
    if (!current) return;
    this.current = undefined;
    clearTimeout(current.timer);
    if (err) current.job.reject(err);
    else current.job.resolve(resources!);
  }

  /** An idle thread no longer keeps the process alive, and is stopped after idleMs. */
  private rest(thread: Worker): void {
    thread.unref();
    this.idle = setTimeout(() => {
      if (this.thread === thread && !this.current) void this.stopThread();
    }, this.idleMs);
    this.idle.unref();
  }

  private async stopThread(): Promise<void> {
    const thread = this.thread;
    this.thread = undefined;
    if (thread) await thread.terminate();
  }
}

function unpack(r: PackedResource): ExpandedResource {
  return {
    href: r.href,
    events: r.events,
    skipped: r.skipped,
    starts: Array.from(r.starts, (ms) => new Date(ms)),
    ends: Array.from(r.ends, (ms) => new Date(ms)),
  };
}

/** The process's expander, shared by its calendar syncs. */
export const icsExpander = new IcsExpander();
