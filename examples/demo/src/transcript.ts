/** A readable transcript of the demo, and the expectations that make it exit non-zero when one fails. */

let failures = 0;

/** Prints a section heading. */
export function section(title: string): void {
  console.log(`\n== ${title} ${'='.repeat(Math.max(0, 70 - title.length))}`);
}

/** Prints one step with the facts it produced. */
export function step(label: string, facts: Record<string, unknown> = {}): void {
  const detail = Object.entries(facts)
    .map(([key, value]) => `${key}=${typeof value === 'string' ? value : JSON.stringify(value)}`)
    .join('  ');
  console.log(`  - ${label}${detail ? `\n      ${detail}` : ''}`);
}

/** Records an expectation; a failed one is printed and makes the demo exit non-zero. */
export function expectThat(condition: boolean, what: string): void {
  if (condition) return;
  failures += 1;
  console.log(`    ✗ expected: ${what}`);
}

/** Runs `action`, expecting it to reject with an error whose `code` is `code`; returns that error. */
export async function expectError(
  action: () => Promise<unknown>,
  code: string,
): Promise<{ code: string; message: string } & Record<string, unknown>> {
  try {
    await action();
  } catch (error) {
    const caught = error as { code: string; message: string };
    expectThat(caught.code === code, `error code ${code}, got ${caught.code}`);
    return caught as never;
  }
  expectThat(false, `an error with code ${code}`);
  return { code: 'none', message: 'no error' };
}

/** Number of failed expectations so far. */
export function failureCount(): number {
  return failures;
}
