// The MCP tools at run time: each tool of contract/mcp.ts bound to its endpoint of
// contract/endpoints.ts. The published input schema is the endpoint's request schema (JSON Schema
// from zod, input mode) and the output schema its 200 body (output mode). A call is the REST
// request, run through this process's own Koa app (loopback.ts) with the caller's key: the REST
// route validates (its 400 detail names the field), limits, runs the workflow, audits and attests;
// the answer's JSON body becomes structuredContent. Nothing here validates or dispatches again,
// except what the transport itself needs (base64 of an image, text form fields, a path parameter).
import { z } from 'zod';
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import { ENDPOINTS, type Endpoint } from '../../contract/endpoints.js';
import { imageFieldsSchema } from '../../contract/image.js';
import {
  MCP_BATCH_DEFAULT_WAIT_SECONDS,
  MCP_BATCH_MAX_WAIT_SECONDS,
  MCP_TOOLS,
  mcpBatchSubmitArgumentsSchema,
  type McpToolContract,
  type McpToolName,
} from '../../contract/mcp.js';
import type { Loopback, LoopbackAnswer } from './loopback.js';

type JsonSchema = Record<string, unknown>;

/**
 * zod's JSON Schema of a contract schema, with an object at its root as MCP requires: a schema
 * with a registered id comes out as a root `$ref` into `definitions`, which is inlined here (the
 * definitions stay for nested references); a union of objects gets `type: object` beside its anyOf.
 */
export function toolJsonSchema(schema: z.ZodType, io: 'input' | 'output'): JsonSchema {
  const full = z.toJSONSchema(schema, { target: 'draft-7', unrepresentable: 'any', io }) as JsonSchema;
  const { $ref, ...rest } = full;
  const defs = (full.definitions ?? {}) as Record<string, JsonSchema>;
  const prefix = '#/definitions/';
  const root =
    typeof $ref === 'string' && $ref.startsWith(prefix) ? { ...rest, ...defs[$ref.slice(prefix.length)] } : rest;
  return { ...root, type: 'object' };
}

export interface McpTool {
  contract: McpToolContract;
  endpoint: Endpoint;
  /** What tools/list shows. */
  listing: Tool;
}

function bind(contract: McpToolContract): McpTool {
  const endpoint = ENDPOINTS.find((e) => e.id === contract.endpoint);
  if (!endpoint) throw new Error(`MCP tool ${contract.name}: no endpoint ${contract.endpoint}`);
  const input = contract.input ?? endpoint.body?.schema;
  const output = endpoint.responses[200]?.schema;
  if (!input || !output)
    throw new Error(`MCP tool ${contract.name}: endpoint ${endpoint.id} has no request or 200 schema`);
  return {
    contract,
    endpoint,
    listing: {
      name: contract.name,
      title: contract.title,
      description: contract.description,
      inputSchema: toolJsonSchema(input, 'input') as Tool['inputSchema'],
      outputSchema: toolJsonSchema(output, 'output') as Tool['outputSchema'],
      annotations: {
        title: contract.title,
        readOnlyHint: contract.name === 'batch_status' || contract.name === 'attestation_verify',
        destructiveHint: false,
        openWorldHint: false,
      },
    },
  };
}

export const MCP_TOOL_TABLE: ReadonlyMap<McpToolName, McpTool> = new Map(MCP_TOOLS.map((c) => [c.name, bind(c)]));

/** What a tool call needs besides its arguments. */
export interface ToolCallContext {
  loopback: Loopback;
  apiKey: string;
  signal: AbortSignal;
  /** Present when the caller asked for progress (a progress token). */
  progress?: (progress: number, total: number, message: string) => Promise<void>;
}

type Args = Record<string, unknown>;

/** `verify_math` → `math` (the summaries' and errors' prefix). */
const short = (name: string) => name.replace(/^verify_/, '');

/** A tool error (isError) whose text names the field, as the REST 400 detail does. */
const argumentError = (tool: string, field: string, message: string): CallToolResult => ({
  isError: true,
  content: [{ type: 'text', text: `${short(tool)}: Invalid field '${field}': ${message}` }],
});

/** The error detail of a REST answer: `detail`, or the SVC-005 object's message. */
function detailOf(answer: LoopbackAnswer): string {
  const body = answer.json as
    { detail?: unknown; error?: { message?: unknown; details?: { retry_after?: unknown } } } | undefined;
  if (typeof body?.detail === 'string') return body.detail;
  if (typeof body?.error?.message === 'string') {
    const retry = body.error.details?.retry_after;
    return typeof retry === 'number' ? `${body.error.message} (retry after ${retry} s)` : body.error.message;
  }
  return answer.text.slice(0, 500) || `HTTP ${answer.status}`;
}

/** One line for the model: the verdict, and the proof or the job where there is one. */
export function summaryOf(name: McpToolName, body: Record<string, unknown>): string {
  if (name === 'batch_submit' || name === 'batch_status') {
    const done = Number(body.completed_items ?? 0) + Number(body.failed_items ?? 0);
    const tail = body.status === 'running' ? '; read it later with batch_status' : '';
    return `batch ${String(body.job_id)}: ${String(body.status)} (${done}/${String(body.total_items)} items, ${String(body.failed_items ?? 0)} failed)${tail}`;
  }
  if (name === 'attestation_verify')
    return body.valid === true
      ? `attestation: VALID (kid ${String(body.kid)})`
      : `attestation: INVALID (${String(body.reason)})`;
  const verdict =
    typeof body.status === 'string'
      ? body.status
      : typeof body.verdict === 'string'
        ? body.verdict
        : typeof body.verified === 'boolean'
          ? body.verified
            ? 'VERIFIED'
            : 'NOT VERIFIED'
          : 'answered';
  const extra: string[] = [];
  if (typeof body.admission === 'string') extra.push(`admission ${body.admission}`);
  if (typeof body.proof_ref === 'string') extra.push(`proof ${body.proof_ref}`);
  const att = body.attestation as { id?: unknown } | undefined;
  if (att && typeof att.id === 'string') extra.push(`attestation ${att.id}`);
  return `${short(name)}: ${verdict}${extra.length ? ` (${extra.join(', ')})` : ''}`;
}

function answerResult(name: McpToolName, answer: LoopbackAnswer): CallToolResult {
  const body = answer.json;
  if (answer.status >= 200 && answer.status < 300 && body && typeof body === 'object' && !Array.isArray(body)) {
    const structured = body as Record<string, unknown>;
    return {
      structuredContent: structured,
      content: [
        { type: 'text', text: summaryOf(name, structured) },
        { type: 'text', text: JSON.stringify(structured) },
      ],
    };
  }
  // Refused or failed: the REST status and detail (a 400 names the field), and the whole body.
  const content: CallToolResult['content'] = [
    { type: 'text', text: `${short(name)}: HTTP ${answer.status}: ${detailOf(answer)}` },
  ];
  if (body !== undefined) content.push({ type: 'text', text: JSON.stringify(body) });
  return { isError: true, content };
}

/** Text form fields of an upload: strings only (a form carries text); null means absent, as in JSON bodies. */
function formFields(tool: string, args: Args, names: readonly string[], form: FormData): CallToolResult | null {
  for (const name of names) {
    const v = args[name];
    if (v === undefined || v === null) continue;
    if (typeof v !== 'string') return argumentError(tool, name, 'must be a string');
    form.append(name, v);
  }
  return null;
}

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/** Arguments → the REST request of the tool, or a tool error naming the field. */
function requestFor(
  tool: McpTool,
  args: Args,
): { path: string; method: 'GET' | 'POST'; body?: { json: unknown } | { form: FormData } } | CallToolResult {
  const { contract, endpoint } = tool;
  const method = endpoint.method === 'get' ? 'GET' : 'POST';
  switch (contract.transport ?? 'json') {
    case 'path': {
      // The path parameters, checked with the endpoint's own parameter schema.
      const parsed = (contract.input as z.ZodObject).safeParse(args);
      if (!parsed.success) {
        const issue = parsed.error.issues[0];
        return argumentError(contract.name, issue?.path.join('.') || 'arguments', issue?.message ?? 'invalid');
      }
      const params = parsed.data as Record<string, string>;
      const path = endpoint.path.replace(/\{([a-z_]+)\}/g, (_m, p: string) => encodeURIComponent(params[p] ?? ''));
      return { method, path };
    }
    case 'image': {
      const b64 = args.image_base64;
      if (typeof b64 !== 'string')
        return argumentError(
          contract.name,
          'image_base64',
          b64 === undefined || b64 === null ? 'is required' : 'must be a string',
        );
      const compact = b64.replace(/\s+/g, '');
      if (compact.length === 0 || compact.length % 4 !== 0 || !BASE64.test(compact))
        return argumentError(contract.name, 'image_base64', 'must be standard base64');
      const form = new FormData();
      const bad = formFields(contract.name, args, Object.keys(imageFieldsSchema.shape), form);
      if (bad) return bad;
      form.append('image', new Blob([Buffer.from(compact, 'base64')]), 'image');
      return { method, path: endpoint.path, body: { form } };
    }
    case 'stats': {
      const csv = args.csv;
      if (typeof csv !== 'string')
        return argumentError(
          contract.name,
          'csv',
          csv === undefined || csv === null ? 'is required' : 'must be a string',
        );
      const form = new FormData();
      const bad = formFields(contract.name, args, ['query'], form);
      if (bad) return bad;
      form.append('file', new Blob([csv], { type: 'text/csv' }), 'data.csv');
      return { method, path: endpoint.path, body: { form } };
    }
    case 'json': {
      // The arguments are the request body as they came: the route validates them.
      const { wait_seconds: _wait, ...body } = args;
      return { method, path: endpoint.path, body: { json: contract.name === 'batch_submit' ? body : args } };
    }
  }
}

const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    const t = setTimeout(done, ms);
    function done() {
      clearTimeout(t);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });

/**
 * batch_submit with a progress token: the job's progress as notifications, polling its status
 * (GET /verify/batch/{job_id}, limited like any call) until it ends, the wait runs out or the
 * caller goes away. The job is a workflow: it runs on either way.
 */
async function followBatch(
  job: Record<string, unknown>,
  args: Args,
  ctx: ToolCallContext,
): Promise<Record<string, unknown>> {
  const progress = ctx.progress as NonNullable<ToolCallContext['progress']>;
  const total = Number(job.total_items) || 0;
  const doneOf = (j: Record<string, unknown>) => Number(j.completed_items ?? 0) + Number(j.failed_items ?? 0);
  let sent = -1;
  const report = async (j: Record<string, unknown>) => {
    const done = doneOf(j);
    // Progress only ever grows, so a running snapshot with every item finished is held back:
    // the notification with progress = total is the one that says how the job ended.
    if (done <= sent || (j.status === 'running' && done >= total)) return;
    sent = done;
    await progress(done, total, `batch ${String(j.job_id)}: ${String(j.status)}, ${done}/${total} items`).catch(
      () => undefined,
    );
  };
  await report(job);
  const wait =
    typeof args.wait_seconds === 'number' && args.wait_seconds >= 0
      ? Math.min(args.wait_seconds, MCP_BATCH_MAX_WAIT_SECONDS)
      : MCP_BATCH_DEFAULT_WAIT_SECONDS;
  const deadline = Date.now() + wait * 1000;
  let polls = 0;
  while (job.status === 'running' && !ctx.signal.aborted && Date.now() < deadline) {
    // Every second at first, then every two: each poll counts against the plan like a batch_status call.
    await sleep(Math.min(polls++ < 5 ? 1000 : 2000, Math.max(0, deadline - Date.now())), ctx.signal);
    if (ctx.signal.aborted) break;
    const answer = await ctx.loopback
      .request({
        method: 'GET',
        path: `/verify/batch/${encodeURIComponent(String(job.job_id))}`,
        apiKey: ctx.apiKey,
        signal: ctx.signal,
      })
      .catch(() => null);
    // A refused poll (e.g. the plan's rate limit) ends the wait: the last snapshot is the answer.
    if (!answer || answer.status !== 200 || !answer.json || typeof answer.json !== 'object') break;
    job = answer.json as Record<string, unknown>;
    await report(job);
  }
  // The SDK's client handles a notification on a later microtask but a response at once, and
  // drops a request's progress handler with its response: a last notification that reaches it in
  // the same chunk as the result is lost. A short pause sends them apart.
  // 100 ms: 50 was seen too short for a stdio relay on a loaded machine (a clean-clone run).
  if (sent >= 0) await new Promise((r) => setTimeout(r, 100));
  return job;
}

/** Runs one tool call as its REST request. */
export async function callTool(tool: McpTool, args: Args, ctx: ToolCallContext): Promise<CallToolResult> {
  const req = requestFor(tool, args);
  if ('content' in req) return req;
  if (tool.contract.name === 'batch_submit' && args.wait_seconds !== undefined && args.wait_seconds !== null) {
    // The one argument the route does not know: checked with its contract schema.
    const w = mcpBatchSubmitArgumentsSchema.shape.wait_seconds.safeParse(args.wait_seconds);
    if (!w.success) return argumentError(tool.contract.name, 'wait_seconds', w.error.issues[0]?.message ?? 'invalid');
  }
  const answer = await ctx.loopback.request({ ...req, apiKey: ctx.apiKey, signal: ctx.signal });
  if (
    tool.contract.name === 'batch_submit' &&
    ctx.progress &&
    (answer.status === 200 || answer.status === 202) &&
    answer.json &&
    typeof answer.json === 'object'
  ) {
    const job = await followBatch(answer.json as Record<string, unknown>, args, ctx);
    return answerResult(tool.contract.name, { ...answer, status: 200, json: job });
  }
  return answerResult(tool.contract.name, answer);
}
