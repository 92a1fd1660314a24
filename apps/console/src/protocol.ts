import type {
  ParameterDefinition as ClientParameterDefinition,
  SkillrunExecution,
  SkillVersionList,
} from '@skillrun/client';

/** The shapes the console reads, as the HTTP API answers them (see /openapi.json). */
export type {
  ApprovalPage,
  ApprovalView,
  AuditPage,
  AuditRecord,
  BatchView,
  Schedule,
  SchedulePage,
  SkillrunExecution as Execution,
} from '@skillrun/client';

export interface ExecutionPage {
  executions: SkillrunExecution[];
  next_cursor: string | null;
}

export type JsonSchema = {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
  enum?: unknown[];
  const?: unknown;
  default?: unknown;
  description?: string;
  title?: string;
  format?: string;
  pattern?: string;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
  minLength?: number;
  maxLength?: number;
  minItems?: number;
  maxItems?: number;
  additionalProperties?: boolean | JsonSchema;
  [keyword: string]: unknown;
};

/** One input of a Skill Descriptor (spec 000), its JSON Schema read as the forms and tables read it. */
export interface ParameterDefinition extends Omit<ClientParameterDefinition, 'schema'> {
  schema?: JsonSchema;
}

export type Deprecation = NonNullable<SkillVersionList['versions'][number]['deprecated']>;

export interface SkillDescriptor {
  id: string;
  name: string;
  version: string;
  capability_type: string;
  description: string;
  provider?: { name: string; url?: string };
  endpoint: {
    url: string;
    status_url: string;
    timeout_ms: number;
    'x-events_url'?: string;
    [field: string]: unknown;
  };
  inputs: ParameterDefinition[];
  output: { content_type: string; schema: JsonSchema; description?: string };
  auth: { type: string; description?: string };
  access: string;
  tags?: string[];
  'x-category'?: string;
  'x-deprecated'?: Deprecation;
  /** Shown to admins while an operator holds the skill (POST /skills/{id}/pause). */
  'x-paused'?: { paused_at: string; paused_by: string };
  [field: string]: unknown;
}

export interface SkillPage {
  skills: SkillDescriptor[];
  next_cursor: string | null;
}

export interface Task {
  execution_id: string;
  skill_id: string;
  skill_version: string;
  description: string;
  instructions?: string;
  inputs: Record<string, unknown>;
  output_schema: JsonSchema;
  state: 'open' | 'claimed';
  claimed_by?: string;
  claimed_at?: string;
  deadline: string;
  created_at: string;
  caller: { id: string; type: string };
}

export interface TaskPage {
  tasks: Task[];
  next_cursor: string | null;
}
