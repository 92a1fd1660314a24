// What generated types give a consumer: compiled by test/integration/client-types.test.ts, which
// also checks that each line marked @ts-expect-error is an error without its mark.
import type { SkillrunClient } from '@skillrun/client';

declare module '@skillrun/client' {
  interface SkillTypes {
    'client-fixture.greet': {
      input: { name: string; loud?: boolean };
      output: { greeting: string };
    };
  }
}

export async function typedUsage(client: SkillrunClient): Promise<string> {
  const greet = client.skill('client-fixture.greet');
  await greet.invoke({ name: 'Ada' });
  await greet.invoke({ name: 'Ada', loud: true }, { context: { priority: 'high' } });
  // @ts-expect-error name is a string
  await greet.invoke({ name: 42 });
  // @ts-expect-error name is required
  await greet.invoke({ loud: true });
  // @ts-expect-error the skill takes no colour
  await greet.invokeAndWait({ name: 'Ada', colour: 'red' });
  const output = await greet.invokeAndWait({ name: 'Ada' });
  // @ts-expect-error the output has no farewell
  const farewell: string = output.farewell;
  // A skill without generated types takes any object and answers unknown.
  const other: unknown = await client.skill('anything').invokeAndWait({ whatever: 1 });
  return `${output.greeting} ${farewell} ${String(other)}`;
}
