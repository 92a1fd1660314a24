/** The server's name and version, as `initialize` and `server/discover` answer them. */
export const MCP_SERVER_INFO = { name: 'skillrun', version: '0.1.0' };

/** What the server tells the model of itself (`instructions`), in both eras. */
export const MCP_INSTRUCTIONS =
  "Each tool is a skill of this skillrun service. A call runs the skill on the service's workers and answers its output; one that takes longer than the service's bound answers where its result will be, or runs as a task.";
