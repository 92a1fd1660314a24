interface Input {
  text: string;
  top: number;
  words_per_minute: number;
}

export function execute({ text, top, words_per_minute }: Input) {
  const words = text.toLowerCase().match(/[\p{L}\p{N}'’]+/gu) ?? [];
  const counts = new Map<string, number>();
  for (const word of words) counts.set(word, (counts.get(word) ?? 0) + 1);
  const top_words = [...counts]
    .sort(([a, x], [b, y]) => y - x || a.localeCompare(b))
    .slice(0, top)
    .map(([word, count]) => ({ word, count }));
  return {
    characters: [...text].length,
    words: words.length,
    sentences: text.split(/[.!?。！？]+/u).filter((part) => part.trim().length > 0).length,
    reading_time_seconds: Math.ceil((words.length / words_per_minute) * 60),
    top_words,
  };
}
