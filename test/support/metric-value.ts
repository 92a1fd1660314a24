/** A metric's value from a /metrics page (the sum of its series). */
export async function metricValue(url: string, name: string): Promise<number> {
  const text = await (await fetch(url)).text();
  const values = text
    .split('\n')
    .filter((line) => line.startsWith(name) && /^[^{\s]+(\{[^}]*\})?\s/.test(line))
    .filter((line) => line.split(/[{\s]/)[0] === name)
    .map((line) => Number(line.split(/\s+/).at(-1)));
  return values.reduce((sum, value) => sum + value, 0);
}
