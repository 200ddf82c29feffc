/**
 * The two undici classes QueueBox uses, loaded from their own files. `import 'undici'` runs its
 * index, which loads every part of undici (fetch, WebSocket, cache, mock agents): several times
 * what the Pool and the Agent alone take, and a noticeable share of QueueBox's start to ready. The
 * Agent's `request` comes from its own file too (see `request`). The file paths are undici's
 * internal layout, so the dependency is pinned to one version (package.json); a layout change fails
 * every HTTP publisher test.
 */
import { createRequire } from 'node:module';
import type { Agent as UndiciAgent, Dispatcher, Pool as UndiciPool } from 'undici';

const require = createRequire(import.meta.url);

export const Pool = require('undici/lib/dispatcher/pool.js') as typeof UndiciPool;
export const Agent = require('undici/lib/dispatcher/agent.js') as typeof UndiciAgent;
/**
 * `Dispatcher.request` as a function of the dispatcher: undici's index adds it to every
 * dispatcher's prototype, which a class loaded from its own file does not have.
 */
const requestApi = require('undici/lib/api/api-request.js') as (
  this: Dispatcher,
  options: Dispatcher.RequestOptions,
) => Promise<Dispatcher.ResponseData>;
export function request(
  dispatcher: Dispatcher,
  options: Dispatcher.RequestOptions,
): Promise<Dispatcher.ResponseData> {
  return requestApi.call(dispatcher, options);
}
export type Pool = UndiciPool;
export type Agent = UndiciAgent;
