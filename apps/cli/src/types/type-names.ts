/** `text_stats` → `TextStats`, `com.acme.summarize-v2` → `ComAcmeSummarizeV2`: a TypeScript type name. */
export function pascalCase(text: string): string {
  const words = text.split(/[^A-Za-z0-9]+/).filter((word) => word !== '');
  const name = words.map((word) => word.charAt(0).toUpperCase() + word.slice(1)).join('');
  return /^[A-Za-z]/.test(name) ? name : `Skill${name}`;
}

/** Type names for each skill id, made unique when two ids give the same one. */
export function typeNamesOf(ids: string[]): Map<string, string> {
  const names = new Map<string, string>();
  const taken = new Set<string>();
  for (const id of ids) {
    const base = pascalCase(id);
    let name = base;
    for (let n = 2; taken.has(name); n++) name = `${base}${n}`;
    taken.add(name);
    names.set(id, name);
  }
  return names;
}
