/**
 * An event stream's response that breaks, as a dropped connection does, once `events` events with
 * data have come through it (a `retry:` field alone is not one): what reaches the reader is what
 * came so far, then a `terminated` TypeError (what fetch's body gives when its connection drops).
 */
export async function cutAfterEvents(response: Response, events: number): Promise<Response> {
  if (!response.body) return response;
  const reader = response.body.getReader();
  const passed: Uint8Array[] = [];
  let text = '';
  while ((text.match(/data:[^\n]*\n\n/g) ?? []).length < events) {
    const { value, done } = await reader.read();
    if (done || !value) break;
    passed.push(value);
    text += new TextDecoder().decode(value);
  }
  const cut = new ReadableStream<Uint8Array>({
    pull(controller) {
      const chunk = passed.shift();
      if (chunk) controller.enqueue(chunk);
      else {
        void reader.cancel();
        controller.error(new TypeError('terminated'));
      }
    },
  });
  return new Response(cut, { status: response.status, headers: response.headers });
}
