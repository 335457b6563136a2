/**
 * valibot, re-exported so an adapter's wire schemas need no dependency beyond `@pay/core`
 * (`import * as v from '@pay/core/schema'`). The one `export *` of a published entry: its list is valibot's, pinned
 * by the version core depends on, and the API report counts it instead of listing it
 * (docs/architecture.md#public-surface).
 */
export * from 'valibot';
