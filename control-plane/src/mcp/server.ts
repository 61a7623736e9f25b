// `reglab mcp`: the control plane's operations as Model Context Protocol tools over stdio, so that
// an AI agent can drive a lab. Each call finds the control plane of the state folder as the CLI
// does (starting it again when it ended and the state still holds labs), and the lab as the CLI
// does (`lab`, else --lab, else the only lab up). stdout carries the protocol: nothing else may
// be written there.
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { describeError, errorCodeOf } from '../../../lib/errors.js';
import { LabCalls } from '../../../scenarios/src/steps/lab-calls.js';
import { controlPlaneOf, labToActOn } from '../cli/client.js';
import { scenarioRunTool } from './scenario-tool.js';
import { CONTROL_PLANE_TOOLS, LAB_TOOLS, type LabTool } from './tools.js';

export interface McpOptions {
  /** The state folder whose control plane the tools call. */
  home: string;
  /** The lab tools act on when a call names none (--lab). */
  lab?: string;
  /** Where relative paths (scenario files, reports) are read from. */
  cwd: string;
  version: string;
}

const INSTRUCTIONS = `Drives a reglab lab: a regtest Bitcoin chain, Lightning nodes (lnd, LDK), RGB nodes and lab services (wallet server, faucet, chain adapter), through its control plane.
Start with status: it names the services and nodes every other tool takes. Tools that queue work (mine, fund, pay, channel_open, channel_close, reorg, asset_send) answer once it has ended, with its result or the reason it failed.
An error is the control plane's own: CODE: message, saying what was wrong and what to do. Every lab tool takes \`lab\` when several labs are up.`;

const labArgument = z
  .string()
  .optional()
  .describe('the lab to act on (default: the one `reglab mcp --lab` names, else the only lab up)');

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** A tool's answer: text for people and agents, and the same object as structured content. */
async function answer(work: () => Promise<unknown>): Promise<CallToolResult> {
  try {
    const result = await work();
    const text = typeof result === 'string' ? result : JSON.stringify(result, null, 2);
    return { content: [{ type: 'text', text }], ...(isRecord(result) ? { structuredContent: result } : {}) };
  } catch (error) {
    const code = errorCodeOf(error);
    return { isError: true, content: [{ type: 'text', text: `${code ? `${code}: ` : ''}${describeError(error)}` }] };
  }
}

export function mcpServer(options: McpOptions): McpServer {
  const server = new McpServer({ name: 'reglab', version: options.version }, { instructions: INSTRUCTIONS });
  const register = (tool: LabTool, aboutLab: boolean) =>
    server.registerTool(
      tool.name,
      {
        description: tool.description,
        inputSchema: z.strictObject({ ...tool.input, ...(aboutLab ? { lab: labArgument } : {}) }),
      },
      ({ lab, ...args }: Record<string, unknown>) =>
        answer(async () => {
          const api = await controlPlaneOf(options.home);
          const name = aboutLab ? await labToActOn(api, (lab as string | undefined) ?? options.lab) : '';
          return tool.run({ api, lab: new LabCalls(api, name), cwd: options.cwd }, args);
        }),
    );
  for (const tool of CONTROL_PLANE_TOOLS) register(tool, false);
  for (const tool of [...LAB_TOOLS, scenarioRunTool]) register(tool, true);
  return server;
}

/** Serves the tools on stdin and stdout until the client closes them. */
export async function serveMcp(options: McpOptions): Promise<void> {
  await mcpServer(options).connect(new StdioServerTransport());
}
