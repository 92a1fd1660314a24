import type OpenAI from 'openai';
import type { ChatCompletionChunk } from 'openai/resources/chat/completions';

/**
 * A streamed chat completion (`stream: true`: the server-sent `data:` lines the SDK parses into
 * chunks) put together as the whole completion would have been: the first choice's content and
 * refusal, its finish reason, and the usage the last chunk carries (`stream_options.include_usage`).
 * Each piece of text is handed to `onDelta` as it arrives.
 */
export async function collectStream(
  chunks: AsyncIterable<ChatCompletionChunk>,
  onDelta: (text: string) => void,
): Promise<OpenAI.ChatCompletion> {
  let head: Pick<ChatCompletionChunk, 'id' | 'created' | 'model'> | undefined;
  let usage: ChatCompletionChunk['usage'];
  let chose = false;
  let content = '';
  let refusal = '';
  let finishReason: OpenAI.ChatCompletion.Choice['finish_reason'] | undefined;
  for await (const chunk of chunks) {
    head ??= { id: chunk.id, created: chunk.created, model: chunk.model };
    if (chunk.usage) usage = chunk.usage;
    const choice = Array.isArray(chunk.choices) ? chunk.choices.find(({ index }) => index === 0) : undefined;
    if (!choice) continue;
    chose = true;
    const text = choice.delta?.content;
    if (text) {
      content += text;
      onDelta(text);
    }
    if (choice.delta?.refusal) refusal += choice.delta.refusal;
    if (choice.finish_reason) finishReason = choice.finish_reason;
  }
  return {
    id: head?.id ?? '',
    object: 'chat.completion',
    created: head?.created ?? 0,
    model: head?.model ?? '',
    choices: chose
      ? [
          {
            index: 0,
            message: { role: 'assistant', content: content || null, refusal: refusal || null },
            finish_reason: finishReason ?? 'stop',
            logprobs: null,
          },
        ]
      : [],
    ...(usage ? { usage } : {}),
  };
}
