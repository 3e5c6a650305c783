import { parentPort } from 'node:worker_threads';
import { checkRuleSet } from '../routing/rule-set-check.js';
import type { CheckReply, CheckRequest } from './rule-set-checker.js';

/**
 * The regex rule sets' compile thread (see rule-set-checker.ts): compiles one tenant's pattern set at a
 * time with `checkRuleSet`. A set that takes long to compile (or to be refused) stalls only this thread,
 * never the API's event loop; the checker terminates the thread when a check exceeds its time limit.
 */
const port = parentPort;
if (port === null) throw new Error('rule-set-check.worker must run in a worker thread');

// The checker starts a check's time limit when the thread is ready, so a (re)start never counts against it.
const ready: CheckReply = { type: 'ready' };
port.postMessage(ready);

port.on('message', (request: CheckRequest) => {
  const started = performance.now();
  let reply: CheckReply;
  try {
    reply = { type: 'checked', id: request.id, result: checkRuleSet(request.patterns, { maxMem: request.maxMem }), ms: performance.now() - started };
  } catch (error) {
    reply = { type: 'error', id: request.id, error: error instanceof Error ? error.message : String(error) };
  }
  port.postMessage(reply);
});
