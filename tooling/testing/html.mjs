/**
 * Reading a served HTML page in a test the way a person reads it: a table row's text. The simulator kit's pages
 * (`pay dev`'s event log) are plain HTML, and a test asserts what the row says, not its markup.
 */

/**
 * The text of the first table row (`<tr …>…</tr>`) of `html` whose markup contains `cell`: tags dropped, runs of
 * white space made one space, HTML entities kept as written. `undefined` when no row contains it.
 */
export function rowText(html, cell) {
  return html
    .match(/<tr[\s>][\s\S]*?<\/tr>/g)
    ?.find((row) => row.includes(cell))
    ?.replace(/<[^>]+>/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
}
