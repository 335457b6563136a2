export async function providerBenchmarks() {
  return [];
}
