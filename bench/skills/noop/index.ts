export function execute(input: { text: string }) {
  return { text: input.text };
}
