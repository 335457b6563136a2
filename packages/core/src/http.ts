/** Kept while consumers move to `./http/index.js` (issue 13 item 4): everything the HTTP layer exports. */
export * from './http/index.js';
