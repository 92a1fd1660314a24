import { Role, type Task, TaskState } from '@a2a-js/sdk';
import { ClientFactory } from '@a2a-js/sdk/client';

// The A2A SDK's client, from the Agent Card at /.well-known/agent-card.json.
const client = await new ClientFactory().createFromUrl(process.env.SKILLRUN_URL ?? 'http://localhost:3000');
const apiKey = process.env.SKILLRUN_API_KEY;

// The skill is named in the message's metadata; its inputs are one data part.
const answer = await client.sendMessage(
  {
    tenant: '',
    metadata: undefined,
    configuration: undefined,
    message: {
      messageId: crypto.randomUUID(),
      contextId: '',
      taskId: '',
      role: Role.ROLE_USER,
      metadata: { skill_id: 'text_stats' },
      extensions: [],
      referenceTaskIds: [],
      parts: [
        {
          content: { $case: 'data', value: { text: 'One fish.' } },
          metadata: undefined,
          filename: '',
          mediaType: 'application/json',
        },
      ],
    },
  },
  { serviceParameters: apiKey ? { 'X-API-Key': apiKey } : {} },
);

// The task is the execution: its id is the execution id, its artifact `output` the skill's output.
const task = answer as Task;
const output = task.artifacts[0]?.parts[0]?.content;
console.log('task:', task.id, TaskState[task.status?.state ?? TaskState.TASK_STATE_UNSPECIFIED]);
console.log('output:', JSON.stringify(output?.$case === 'data' ? output.value : undefined));
