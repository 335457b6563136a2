/**
 * valibot, re-exported so an adapter's wire schemas need no other dependency. The one `export *` of a published
 * entry: its list is valibot's, which the API report counts instead of listing (docs/architecture.md#public-surface).
 */
export * from 'valibot';
