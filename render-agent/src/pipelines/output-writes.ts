import type { AgentJobType, OutputNameOf } from '@cutroom/shared/contracts/index';
import { PipelineError } from '../errors.ts';

/** Where an output's bytes come from: a file in the attempt's work folder (streamed), or a document built in memory. */
export type OutputMedium = 'file' | 'memory';

/**
 * How a pipeline produces each output its type's contract declares (shared/src/contracts/):
 * exactly the contract's names, so a pipeline that lacks one, or writes one the contract does not
 * declare, does not type-check. Declare it `as const satisfies OutputWrites<T>` so the sources
 * (OutputSources) keep each output's medium.
 */
export type OutputWrites<T extends AgentJobType> = { readonly [N in OutputNameOf<T>]: OutputMedium };

/** An output's bytes, of the medium its pipeline declared. */
export type OutputSource<M extends OutputMedium = OutputMedium> = M extends 'file' ? { file: string } : { body: Buffer };

/** What a pipeline hands the upload: one source per output it declares, asked for only when that output's turn comes. */
export type OutputSources<W extends Readonly<Record<string, OutputMedium>>> = { readonly [N in keyof W]: () => OutputSource<W[N]> };

/** Refused before any work: an output this pipeline cannot write would only fail after the expensive part. */
export function refuseUnknownOutputs(outputs: Readonly<Record<string, unknown>>, writes: Readonly<Record<string, OutputMedium>>): void {
  const unknown = Object.keys(outputs).find((name) => !Object.hasOwn(writes, name));
  if (unknown !== undefined) throw new PipelineError('internal', `the assignment asks for an output this agent cannot produce: ${unknown}`);
}

/** A JSON document as an output body. */
export const jsonBody = (json: unknown): OutputSource<'memory'> => ({ body: Buffer.from(JSON.stringify(json), 'utf8') });
