// @ts-check
// Integrator Lab page: the user's own method as the page knows it (static/js/editor.js edits
// it, the worker runs it): its name once the worker runs it, the names it has had (their lines
// stay in the plots, hidden) and the hooks by which the worker's side reports on it.

export const userMethod = {
  name: null, // the method the worker runs now (its name), or null
  info: null, // its describe() (order, summary) from the core
  known: [], // every name a user's method had on this page (their plot lines exist)
  python: false, // it is Python code: the page watches that the worker still answers
  sending: false, // a definition was sent and the worker has not answered yet
  // Python code was sent to the current worker: it may have changed anything there, so the
  // next Run or Remove starts from a new worker (worker.js renewWorker); how many were renewed
  tainted: false, renewals: 0,
  // performance.now() when the last definition was sent, when the worker answered, and when
  // a worker that stopped answering was replaced (for status() and the tests)
  sentAt: null, answeredAt: null, replacedAt: null,
  problems: [], // what the core found wrong with the last definition sent
};

// set by static/js/editor.js: what the worker said about a method sent to it, why a lane of
// the user's method stopped, and that the worker had to be replaced
/** @type {{reply: ((msg: import("../types/protocol").MethodReplyMessage) => void) | null,
 *    stopped: ((...args: any[]) => void) | null,
 *    replaced: ((name: string | null, silentMs: number) => void) | null}} */
export const methodHooks = { reply: null, stopped: null, replaced: null };

/** The names of user methods running now (none or one), after the built-ins. */
export function userNames() {
  return userMethod.name ? [userMethod.name] : [];
}

/** Whether the worker may be running user code (then it must keep answering pings): from
 * the moment Python code was sent to it, whatever the worker says since (user code can post
 * the worker's messages: a "method" reply saying no method runs is no evidence). */
export function watchWanted() {
  return userMethod.sending || userMethod.tainted;
}
