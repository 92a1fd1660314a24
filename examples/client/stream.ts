import { SkillrunClient } from '@skillrun/client';

const client = new SkillrunClient({ baseUrl: process.env.SKILLRUN_URL ?? 'http://localhost:3000' });

// The chunks countdown emits (ctx.emit), in order, as they come; a dropped connection is resumed
// with Last-Event-ID, losing and repeating none. The loop ends when the execution ends.
const execution = await client.invoke('countdown', { from: 3, pause_ms: 50 });
for await (const chunk of client.stream(execution)) {
  console.log('chunk:', JSON.stringify(chunk));
}
console.log('output:', JSON.stringify((await client.result(execution)).output));
