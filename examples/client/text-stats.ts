import { SkillrunClient, SkillrunError } from '@skillrun/client';

// The service; `apiKey` (or `bearerToken`) when its skills want credentials.
const client = new SkillrunClient({ baseUrl: process.env.SKILLRUN_URL ?? 'http://localhost:3000' });

const { skills } = await client.searchSkills('text');
console.log('found:', skills.map((skill) => skill.id).join(', '));

// Invoke and wait for the output in one call.
const stats = await client.invokeAndWait('text_stats', { text: 'One fish. Two fish!' });
console.log('text_stats:', JSON.stringify(stats));

// Or invoke, keep the handle, and follow the execution (live, with its progress).
const handle = await client.invoke('count_primes', { below: 3_000_000 }, { idempotencyKey: 'primes-3m' });
const ended = await client.wait(handle, {
  onUpdate: (execution) => console.log('progress:', execution.progress),
});
console.log('count_primes:', ended.status, JSON.stringify(ended.output));

// A refusal is a SkillrunError with the service's code.
try {
  await client.invokeAndWait('count_primes', { below: 1 });
} catch (error) {
  if (!(error instanceof SkillrunError)) throw error;
  console.log('refused:', error.code, error.httpStatus);
}
