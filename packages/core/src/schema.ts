/**
 * valibot, re-exported so an adapter's wire schemas need no dependency beyond `@pay/core`
 * (`import * as v from '@pay/core/schema'`).
 */
export * from 'valibot';
