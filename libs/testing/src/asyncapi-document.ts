import { join } from 'path';
import { readFileSync } from 'fs';
import type { AsyncAPIDocumentInterface } from '@asyncapi/parser';
import type Ajv from 'ajv';
import type { ValidateFunction } from 'ajv';
import { WORKSPACE_ROOT } from './paths';

/**
 * docs/asyncapi.yaml read by the real AsyncAPI parser, with a JSON Schema validator compiled for the payload and the
 * headers of each of its messages: shared by the unit test that checks the document against the code
 * (tools/asyncapi.spec.ts) and the end-to-end test that checks it against what the running services publish
 * (apps/platform-e2e/src/asyncapi.e2e-spec.ts). The parser is loaded on first use, not by every test of the library.
 */
export const ASYNCAPI_DOC_PATH = join(WORKSPACE_ROOT, 'docs', 'asyncapi.yaml');

/** The document is YAML read at run time: its shape is what the tests check, not what a type could promise. */
export type Json = any;

export interface DocumentedMessage {
  channelId: string;
  /** The channel's address: the NATS subject without EVENTS_NAMESPACE, e.g. `integration.offramp.completed`. */
  address: string;
  /** The message name: the integration event, e.g. `offramp.completed`. */
  name: string;
  payload: Json;
  headers: Json;
  examples: { name?: string; headers?: Json; payload?: Json }[];
  validatePayload: ValidateFunction<Json>;
  validateHeaders: ValidateFunction<Json>;
}

export interface AsyncApiDocument {
  /** The parser's diagnostics of severity error, as `code at path: message`. */
  errors: string[];
  /** Its other diagnostics (warnings, information, hints), as `[severity] code at path: message`. */
  otherDiagnostics: string[];
  document: AsyncAPIDocumentInterface | undefined;
  /** The whole document as parsed, extensions (`x-…`) included. */
  raw: Json;
  /** One per message of every channel, in the document's order. */
  messages: DocumentedMessage[];
  /** The validator the schemas are compiled with: strict, every error, with the formats the document uses. */
  ajv: Ajv;
}

export async function loadAsyncApiDocument(): Promise<AsyncApiDocument> {
  const { DiagnosticSeverity, Parser } = await import('@asyncapi/parser');
  const { default: AjvClass } = await import('ajv');
  const { default: addFormats } = await import('ajv-formats');
  const ajv = new AjvClass({ allErrors: true, strict: true });
  addFormats(ajv);
  // Added by the parser to every schema it has read.
  ajv.addKeyword('x-parser-schema-id');

  const parsed = await new Parser().parse(readFileSync(ASYNCAPI_DOC_PATH, 'utf8'), { source: ASYNCAPI_DOC_PATH });
  const document = parsed.document;
  const messages = (document?.channels().all() ?? []).flatMap((channel) =>
    channel
      .messages()
      .all()
      .map((message) => {
        const payload = message.payload()?.json();
        const headers = message.headers()?.json();
        return {
          channelId: channel.id(),
          address: channel.address() ?? '',
          name: message.name() ?? '',
          payload,
          headers,
          examples: message
            .examples()
            .all()
            .map((example) => ({ name: example.name(), headers: example.headers(), payload: example.payload() })),
          validatePayload: ajv.compile(payload ?? false),
          validateHeaders: ajv.compile(headers ?? false),
        };
      }),
  );
  const line = (d: (typeof parsed.diagnostics)[number]) => `${d.code} at ${d.path.join('.')}: ${d.message}`;
  return {
    errors: parsed.diagnostics.filter((d) => d.severity === DiagnosticSeverity.Error).map(line),
    otherDiagnostics: parsed.diagnostics.filter((d) => d.severity !== DiagnosticSeverity.Error).map((d) => `[${DiagnosticSeverity[d.severity]}] ${line(d)}`),
    document,
    raw: document?.meta().asyncapi.parsed ?? {},
    messages,
    ajv,
  };
}

/** The message of the channel whose address is `address`; fails when no channel documents it. */
export function messageFor(messages: DocumentedMessage[], address: string): DocumentedMessage {
  const found = messages.find((message) => message.address === address);
  if (!found) throw new Error(`no channel documents the subject ${address}`);
  return found;
}

/** Fails with the validator's errors, and the value, when `value` does not match: a failure that says why. */
export function expectValid(validate: ValidateFunction<Json>, value: unknown, what: string): void {
  if (!validate(value)) {
    const errors = (validate.errors ?? []).map((error) => `${error.instancePath || '/'} ${error.message ?? ''}`).join('\n');
    throw new Error(`${what} refused:\n${errors}\n${JSON.stringify(value)}`);
  }
}
