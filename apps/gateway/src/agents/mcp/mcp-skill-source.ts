import type { SkillSource } from '@modelcontextprotocol/server/ext/skills';
import { skillEntry } from '@modelcontextprotocol/server/ext/skills';
import { type SkillDescriptor, skillMdName, toSkillMd } from '@skillrun/core';
import { principalOf } from '../../auth/identity';
import type { RequestHeaders } from '../../http/request-headers';
import type { AgentDeps } from '../agent-deps';

/** A skill's one file: `skill://<name>/SKILL.md`, the name as skillMdName makes it. */
const SKILL_MD_URI = /^skill:\/\/([a-z0-9-]{1,64})\/SKILL\.md$/;

/** How many descriptors a look-up by name reads from the registry at a time. */
const SCAN_PAGE = 100;

/**
 * The skills extension's catalogue (SEP-2640) for one request: the skills its caller may see, at
 * their latest versions, each one file, its SKILL.md (toSkillMd), at `skill://<name>/SKILL.md`,
 * listed a tools/list page at a time in the registry's order. Every file is the descriptor's
 * rendering, so its digest is stable for a version and the entries are not `"dynamic"`.
 */
export function mcpSkillSource(deps: AgentDeps, headers: RequestHeaders): SkillSource {
  const viewer = async () => principalOf(await deps.identities.of(headers));
  const entryOf = (descriptor: SkillDescriptor) =>
    skillEntry(skillMdName(descriptor.id), { 'SKILL.md': toSkillMd(descriptor) });

  /**
   * The skill at `uri`: names are not one to one with ids, so the caller's visible skills are read
   * in the registry's order and the first whose name it is answers (the one skills/list shows).
   */
  const find = async (uri: string): Promise<SkillDescriptor | undefined> => {
    const name = SKILL_MD_URI.exec(uri)?.[1];
    if (name === undefined) return undefined;
    const who = await viewer();
    let cursor: string | undefined;
    do {
      const page = await deps.discovery.search(
        { limit: SCAN_PAGE, ...(cursor === undefined ? {} : { cursor }) },
        who,
      );
      const found = page.skills.find((descriptor) => skillMdName(descriptor.id) === name);
      if (found) return found;
      cursor = page.next_cursor ?? undefined;
    } while (cursor !== undefined);
    return undefined;
  };

  return {
    async list({ cursor }) {
      const page = await deps.discovery.search(
        { limit: deps.toolsPageSize, ...(cursor === undefined ? {} : { cursor }) },
        await viewer(),
      );
      return {
        skills: await Promise.all(page.skills.map(entryOf)),
        ...(page.next_cursor === null ? {} : { nextCursor: page.next_cursor }),
      };
    },
    async get(uri) {
      const descriptor = await find(uri);
      return descriptor && entryOf(descriptor);
    },
    async read(uri) {
      const descriptor = await find(uri);
      return descriptor && { text: toSkillMd(descriptor), mimeType: 'text/markdown' };
    },
  };
}
