import { appendFile } from 'node:fs/promises';

/** The test app's order book: each paid transaction on its own line of the file the recipe test reads. */
export async function markPaid(id: string): Promise<void> {
  const file = process.env.RECIPE_PAID_FILE;
  if (file) await appendFile(file, `${id}\n`);
}
