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

port.on('message', (request: CheckRequest) => {
  const started = performance.now();
  let reply: CheckReply;
  try {
    reply = { id: request.id, result: checkRuleSet(request.patterns, { maxMem: request.maxMem }), ms: performance.now() - started };
  } catch (error) {
    reply = { id: request.id, error: error instanceof Error ? error.message : String(error) };
  }
  port.postMessage(reply);
});
