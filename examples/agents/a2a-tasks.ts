import { Role, TaskState } from '@a2a-js/sdk';
import { ClientFactory } from '@a2a-js/sdk/client';

// The A2A SDK's client, from the Agent Card; ListTasks shows a caller its own tasks, so it needs a key.
const client = await new ClientFactory().createFromUrl(process.env.SKILLRUN_URL ?? 'http://localhost:3000');
const as = { serviceParameters: { 'X-API-Key': process.env.SKILLRUN_API_KEY ?? '' } };

// Two messages sent in one context (the client names it), each run at once as its own task.
const contextId = `notes-${crypto.randomUUID()}`;
for (const text of ['One fish.', 'Two fish. Red fish.']) {
  await client.sendMessage(
    {
      tenant: '',
      metadata: undefined,
      configuration: {
        acceptedOutputModes: [],
        taskPushNotificationConfig: undefined,
        returnImmediately: false,
      },
      message: {
        messageId: crypto.randomUUID(),
        contextId,
        taskId: '',
        role: Role.ROLE_USER,
        metadata: { skill_id: 'text_stats' },
        extensions: [],
        referenceTaskIds: [],
        parts: [
          {
            content: { $case: 'data', value: { text } },
            metadata: undefined,
            filename: '',
            mediaType: 'application/json',
          },
        ],
      },
    },
    as,
  );
}

// The context's tasks, newest first, one per page: follow nextPageToken until it is empty.
let pageToken = '';
do {
  const page = await client.listTasks(
    {
      tenant: '',
      contextId,
      status: TaskState.TASK_STATE_COMPLETED,
      pageSize: 1,
      pageToken,
      statusTimestampAfter: undefined,
      includeArtifacts: true,
    },
    as,
  );
  for (const task of page.tasks) {
    const output = task.artifacts[0]?.parts[0]?.content;
    const words = output?.$case === 'data' ? (output.value as { words: number }).words : undefined;
    console.log(`task ${task.id}: ${words} words (${page.totalSize} in the context)`);
  }
  pageToken = page.nextPageToken;
} while (pageToken !== '');
