/**
 * The text of the first table row (`<tr …>…</tr>`) of `html` whose markup contains `cell`: tags dropped, runs of
 * white space made one space, HTML entities kept as written. `undefined` when no row contains it.
 */
export function rowText(html: string, cell: string): string | undefined;
