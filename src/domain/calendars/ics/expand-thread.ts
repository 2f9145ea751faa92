/**
 * The thread that expands calendar resources (started by expander.ts): one request at a time,
 * each a sync's changed resources, answered with their busy blocks as epoch milliseconds in
 * transferred buffers.
 */
import { parentPort } from 'node:worker_threads';
import type { ExpandReply, ExpandRequest, PackedResource } from './expander.ts';
import { expandResource } from './resource.ts';

const port = parentPort!;
port.on('message', (req: ExpandRequest) => {
  const ownUids = new Set(req.ownUids);
  const window = { start: new Date(req.windowStart), end: new Date(req.windowEnd) };
  const results: PackedResource[] = [];
  const buffers: ArrayBuffer[] = [];
  for (const item of req.items) {
    const r = expandResource(item.href, item.data, window, req.zone, ownUids);
    const starts = Float64Array.from(r.starts, (d) => d.getTime());
    const ends = Float64Array.from(r.ends, (d) => d.getTime());
    buffers.push(starts.buffer, ends.buffer);
    results.push({ href: r.href, events: r.events, skipped: r.skipped, starts, ends });
  }
  const reply: ExpandReply = { id: req.id, results };
  port.postMessage(reply, buffers);
});
// the imports above are loaded: a request's time limit counts from here (expander.ts)
port.postMessage('ready');
